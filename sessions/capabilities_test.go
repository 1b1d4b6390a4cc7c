package sessions_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sessions"
)

var (
	acpOnce sync.Once
	acpErr  error
)

// builtACP adds the acp adapter, a small ACP agent and the example adapter
// (which cannot interrupt) to the test binaries.
func builtACP(t *testing.T) {
	t.Helper()
	built(t)
	acpOnce.Do(func() {
		build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
			"github.com/agentproto/agentproto/cmd/agentproto-adapter-acp", "./testdata/acpagent", "../examples/hello-adapter")
		if out, err := build.CombinedOutput(); err != nil {
			acpErr = &buildError{err, out}
		}
	})
	if acpErr != nil {
		t.Fatal(acpErr)
	}
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// A session run by the real daemon through the acp adapter records the
// capabilities its agent's initialize offers, not the adapter's upper
// bound, in its record and in the session_* events of the ledger: two
// agents that offer different things give two different records.
func TestDaemonRecordsTheSessionsCapabilities(t *testing.T) {
	c, dir := newClient(t)
	builtACP(t)
	bound := []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapStateFork, sdk.CapTermination}
	for _, agent := range []struct {
		offers string // the agent's agentCapabilities
		want   []string
	}{
		{`{"loadSession":true,"sessionCapabilities":{"fork":{}}}`, bound},
		{`{"sessionCapabilities":{"list":{}}}`, []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapTermination}},
	} {
		rec, err := c.Start(t.Context(), sessions.StartArgs{Adapter: "acp", Path: filepath.Join(binDir, "agentproto-adapter-acp"), Dir: dir,
			Prompt: "hello", Env: os.Environ(), Options: map[string]string{"command": filepath.Join(binDir, "acpagent") + " '" + agent.offers + "'"}})
		if err != nil {
			t.Fatal(err)
		}
		if pending, err := c.Wait(t.Context(), []string{rec.ID}, sessions.UntilTurnEnd, 30*time.Second); err != nil || len(pending) != 0 {
			t.Fatalf("Wait = %v, %v", pending, err)
		}
		got, err := sessions.OpenView(c.Repo.CommonDir).Load(rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Capabilities, agent.want) || got.CapabilitiesFrom != sessions.CapabilitiesFromSession || !slices.Equal(got.AdapterCapabilities, bound) {
			t.Errorf("%s: record has %v from %q (adapter %v), want %v from the session", agent.offers, got.Capabilities, got.CapabilitiesFrom, got.AdapterCapabilities, agent.want)
		}
		settled := ledgerData(t, c, rec.ID, "session_settled")
		if len(settled) != 1 || !slices.Equal(settled[0].Capabilities, agent.want) || settled[0].CapabilitiesFrom != sessions.CapabilitiesFromSession {
			t.Errorf("%s: session_settled says %+v", agent.offers, settled)
		}
		// The launch is recorded before the agent has said anything: what
		// the adapter declares.
		if launched := ledgerData(t, c, rec.ID, "session_launched"); len(launched) != 1 || launched[0].CapabilitiesFrom != sessions.CapabilitiesFromAdapter {
			t.Errorf("%s: session_launched says %+v", agent.offers, launched)
		}
	}
}

// A session without session_interrupt is refused an interrupt by the
// daemon, naming the capability, before its adapter is asked.
func TestInterruptNeedsTheCapability(t *testing.T) {
	c, dir := newClient(t)
	builtACP(t)
	rec, err := c.Start(t.Context(), sessions.StartArgs{Adapter: "hello", Path: filepath.Join(binDir, "hello-adapter"), Dir: dir,
		Prompt: "sleep 30", Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Prompt(t.Context(), rec.ID, "", true)
	if fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), "does not have session_interrupt (it has session_message_injection, session_termination)") {
		t.Fatalf("interrupt of a session that cannot: %v", err)
	}
	c.Kill(t.Context(), rec.ID)
}

type sessionEvent struct {
	Session          string   `json:"session"`
	Capabilities     []string `json:"capabilities"`
	CapabilitiesFrom string   `json:"capabilities_from"`
}

// ledgerData returns the payloads of kind recorded for session id. The
// daemon appends a transition's event after it has saved the record, so
// it is waited for.
func ledgerData(t *testing.T, c *sessions.Client, id, kind string) []sessionEvent {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var out []sessionEvent
		for e, err := range gitstore.Open(c.Repo, gitstore.Options{}).Events(gitstore.Query{Kinds: []string{kind}}) {
			if err != nil {
				t.Fatal(err)
			}
			var d sessionEvent
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			if d.Session == id {
				out = append(out, d)
			}
		}
		if len(out) > 0 || time.Now().After(deadline) {
			return out
		}
	}
}
