package e2e

import (
	"bytes"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/sessions"
)

// A real claude or codex session whose adapter was let go while idle
// goes on in a new adapter process: the provider's request for the next
// turn carries the earlier turn's answer (claude --resume, codex exec
// resume with the same session), and the session counts on.
func TestRealSessionsGoOnAfterTheirAdapterWasLetGo(t *testing.T) {
	for _, cli := range []string{"claude", "codex"} {
		t.Run(cli, func(t *testing.T) {
			s := startRealWith(t, cli, "[sessions]\nrelease_after = \"300ms\"\n", "first",
				fakemodel.Text("READY"), fakemodel.Text("first answer zq41"))
			first := savedRecord(t, s.dir, s.id).Pid
			waitRecord(t, s.dir, s.id, func(r sessions.Record) bool { return r.Released })
			waitGone(t, first)
			s.api.Script(fakemodel.Text("second answer"))
			s.run("sessions", "prompt", s.id, "--text", "second")
			s.run("sessions", "wait", s.id, "--timeout", "2m")
			var second *fakemodel.Request
			for _, r := range s.api.Requests() {
				if r.Prompt == "second" {
					second = &r
				}
			}
			if second == nil {
				t.Fatalf("the provider never got the second prompt: %s", s.answered())
			}
			if !bytes.Contains(second.Body, []byte("first answer zq41")) {
				t.Fatalf("the second turn did not carry the first (a new conversation, not the same one):\n%s", second.Body)
			}
			m := savedRecord(t, s.dir, s.id)
			if m.State != sessions.StateSettled || m.Turns != 3 || len(m.Faults) != 0 {
				t.Fatalf("after the second turn: state %s, turns %d, faults %v\n%s", m.State, m.Turns, m.Faults, outputLog(s.dir, s.id))
			}
			if out := outputLog(s.dir, s.id); !bytes.Contains([]byte(out), []byte("second answer")) {
				t.Fatalf("output:\n%s", out)
			}
		})
	}
}
