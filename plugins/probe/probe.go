// Package probe runs an adapter once for the CLI — to read what it
// declares, or to check that it accepts a session's options — through the
// sessions binary (agentproto-sessions probe), so the CLI itself never
// links the plugin transport. One JSON request goes on the probe's stdin,
// one JSON response comes back on its stdout.
package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/agentproto/agentproto/internal/companion"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/catalog"
	"github.com/agentproto/agentproto/plugins/vocab"
)

// Verb is the sessions binary's argument that answers a probe.
const Verb = "probe"

// Request is what the probe runs: the adapter of Spec, launched with
// exactly Env. Without Start it returns the adapter's Info; with Start it
// starts that session (no prompt, so no agent runs) and ends it.
type Request struct {
	Spec  catalog.Spec
	Env   []string
	Start *vocab.StartRequest `json:",omitempty"`
}

// Response is the probe's answer: Info, or Error with its Kind (an exit
// code of package fault), so a refusal stays a refusal in the CLI.
type Response struct {
	Info  vocab.Info
	Error string     `json:",omitempty"`
	Kind  fault.Kind `json:",omitempty"`
}

// Describe launches the adapter of spec once and returns what it declares.
func Describe(ctx context.Context, spec catalog.Spec, env []string) (vocab.Info, error) {
	return run(ctx, Request{Spec: spec, Env: env})
}

// Start launches the adapter of spec, starts req without a prompt so the
// adapter checks its options now, and ends it.
func Start(ctx context.Context, spec catalog.Spec, env []string, req vocab.StartRequest) error {
	_, err := run(ctx, Request{Spec: spec, Env: env, Start: &req})
	return err
}

// PathAndHome is the environment adapters are probed with: only PATH and
// HOME of ours, so nothing of the caller's (tokens) reaches them.
func PathAndHome() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}

func run(ctx context.Context, req Request) (vocab.Info, error) {
	bin, err := companion.Find(companion.Sessions)
	if err != nil {
		return vocab.Info{}, fmt.Errorf("adapter %s: %w", req.Spec.Name, err)
	}
	in, err := json.Marshal(req)
	if err != nil {
		return vocab.Info{}, err
	}
	cmd := exec.CommandContext(ctx, bin, Verb)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var resp Response
	if jerr := json.Unmarshal(out, &resp); jerr != nil {
		if err == nil {
			err = jerr
		}
		return vocab.Info{}, fmt.Errorf("adapter %s: the probe (%s %s) failed: %w", req.Spec.Name, bin, Verb, err)
	}
	if resp.Error != "" {
		kind := resp.Kind
		if kind == 0 {
			kind = fault.Failure
		}
		return vocab.Info{}, fault.Wrap(kind, errors.New(resp.Error))
	}
	return resp.Info, nil
}
