package adapters_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// slowWrite is a codex shell call whose command outlives the tool's wait
// (yield_time_ms): codex answers "Process running with session ID N".
func slowWrite(path string) fakemodel.Reply {
	return fakemodel.Call("exec_command", map[string]any{"cmd": "sleep 2; printf late > '" + path + "'", "yield_time_ms": 500})
}

// A write that outlives codex's wait on a resumed turn: a model that
// polls the command (the fake provider, as models do) gets it done; one
// that ends its turn at once (Impatient) loses it — codex exec stops the
// command on exit — and the adapter says so with a command_stopped
// warning naming the command, where before the turn ended as any other.
func TestRealCodexCommandOutlivingItsTurn(t *testing.T) {
	for _, impatient := range []bool{false, true} {
		name := map[bool]string{false: "polled", true: "abandoned"}[impatient]
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, "codex")
			a.api.Impatient = impatient
			dir := repo(t)
			path := filepath.Join(dir, "late.txt")
			a.api.Script(fakemodel.Text("first answer"), slowWrite(path), fakemodel.Text("wrote it"))
			rec, s := a.session(t, dir, nil, "first")
			rec.waitReal(t)
			if err := s.Prompt(context.Background(), "write late.txt", false); err != nil {
				t.Fatal(err)
			}
			rec.waitReal(t)
			out, faults, errs, warns := rec.snapshot()
			_, err := os.Stat(path)
			stopped := hasPrefix(warns, sdk.WarnCommandStopped+": ")
			polls := 0
			for _, r := range a.api.Requests() {
				if r.Answered == "poll" {
					polls++
				}
			}
			switch {
			case len(faults) != 0:
				t.Fatalf("faults %q", errs)
			case !impatient && (err != nil || stopped || polls == 0):
				t.Fatalf("the polled command (%d polls): %v, warnings %q\n%s", polls, err, warns, out)
			case impatient && (!os.IsNotExist(err) || !stopped || polls != 0):
				t.Fatalf("the abandoned command: %v, warnings %q\n%s", err, warns, out)
			case impatient && !strings.Contains(strings.Join(warns, "\n"), "sleep 2; printf late"):
				t.Fatalf("the warning does not name the command: %q", warns)
			}
		})
	}
}
