package acp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/adapters/acp"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// An agent that never answers initialize — here a real Node.js process
// that, as an agent needing a newer Node does, says so on stderr and
// hangs — is an adapter_start_timeout naming the likely cause, reported
// before its first turn ends: never the empty turn of a dead provider.
func TestAgentThatNeverStartsIsAStartTimeout(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH")
	}
	mark := fmt.Sprintf("start-timeout-%d", time.Now().UnixNano()) // names this test's agent among processes
	agent := `node -e 'console.error("this agent needs Node.js >= 99, not " + process.version); setInterval(() => {}, 1000) // ` + mark + `'`
	rec := newRecorder()
	s, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Env: map[string]string{"PATH": os.Getenv("PATH")},
		Options: map[string]string{"command": agent, "start_timeout": "2s"}, InitialPrompt: "go"}, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
	// Terminate returns once the agent is gone: nothing it started
	// outlives the session.
	if err := s.Terminate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pids, _ := exec.Command("pgrep", "-f", mark).Output(); len(pids) > 0 {
		t.Fatalf("the agent outlived Terminate: pids %s", pids)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.faults) != 1 || rec.faults[0] != sdk.FaultAdapterStartTimeout || len(rec.errorsAtEnd) != 1 || rec.errorsAtEnd[0] != 1 {
		t.Fatalf("faults %v, errors %q, errors when the turn ended %v", rec.faults, rec.errors, rec.errorsAtEnd)
	}
	for _, want := range []string{"did not finish starting within 2s (it hung in initialize)", "a Node.js older than the agent needs",
		"node on its PATH: v", "this agent needs Node.js >= 99", "options.start_timeout"} {
		if !strings.Contains(rec.errors[0], want) {
			t.Errorf("the fault's text lacks %q: %s", want, rec.errors[0])
		}
	}
}

// options.start_timeout takes a duration with a unit.
func TestStartTimeoutOption(t *testing.T) {
	_, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Options: map[string]string{"command": "sh", "start_timeout": "90"}}, newRecorder())
	if err == nil || !strings.Contains(err.Error(), `options.start_timeout "90" is not a duration with a unit`) {
		t.Fatalf("err %v", err)
	}
}
