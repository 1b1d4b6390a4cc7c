package acp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// An agent that never finishes starting is no dead provider: it is the
// agent on this machine. Measured: an agent needing a newer Node.js than
// the one on PATH hangs or dies before it answers initialize, and its
// first turn then ended empty — the empty_turn of a dead provider, which
// moves a work package to its fallback profile. It gets a fault of its
// own, adapter_start_timeout, with the likely cause named.

// startTimeout is options.start_timeout, else initTimeout.
func startTimeout(opt string) (time.Duration, error) {
	if opt == "" {
		return initTimeout, nil
	}
	d, err := time.ParseDuration(opt)
	if err != nil || d <= 0 {
		return 0, sdk.Problemf("options.start_timeout %q is not a duration with a unit (such as 2m)", opt)
	}
	return d, nil
}

// setStep notes the setup step under way, for a start that times out.
func (s *Session) setStep(step string) {
	s.mu.Lock()
	s.step = step
	s.mu.Unlock()
}

// timedOut turns an open that ran out of time into the typed fault, naming
// the step it hung in and what usually makes an agent hang there.
func (s *Session) timedOut(ctx context.Context, err error, within time.Duration) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	s.mu.Lock()
	step := s.step
	s.mu.Unlock()
	argv0 := argvName(s.cmd)
	msg := fmt.Sprintf("the agent did not finish starting within %s (it hung in %s): ", within, step)
	if step == "initialize" {
		msg += fmt.Sprintf("it never answered ACP initialize, so it never came up — most often a Node.js older than the agent needs (node on its PATH: %s; the agent's package.json \"engines\" says which), else a missing dependency, or %s is not an ACP agent", nodeVersion(s.env), argv0)
	} else {
		msg += "it came up but did not open the session — it may be waiting on its provider or a login"
	}
	if t := strings.TrimSpace(s.stderr.String()); t != "" {
		msg += "; its stderr: " + t
	} else {
		msg += "; it printed nothing on stderr"
	}
	msg += "; options.start_timeout gives a slow agent longer"
	return &setupError{err: errors.New(msg), fault: sdk.FaultAdapterStartTimeout}
}

// nodeVersion is what `node --version` says with the agent's PATH.
func nodeVersion(env []string) string {
	path := lookup(env, "PATH")
	var node string
	for _, dir := range strings.Split(path, ":") {
		if dir == "" {
			continue
		}
		if p, err := exec.LookPath(dir + "/node"); err == nil {
			node = p
			break
		}
	}
	if node == "" {
		return "none"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return node + " (its --version failed)"
	}
	return strings.TrimSpace(string(out))
}

// reportOpen reports, once, why the session could not be opened: before
// the first turn ends, so that turn is not taken for an empty one.
func (s *Session) reportOpen() {
	s.openOnce.Do(func() {
		s.mu.Lock()
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return // terminated meanwhile, or the agent died (agentGone said so)
		}
		fault := classify(s.openErr.Error())
		var se *setupError
		if errors.As(s.openErr, &se) {
			fault = se.fault
		}
		s.out.Error(s.openErr.Error(), fault)
	})
}
