package reactions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/gitstore/memstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/pipeline"
)

// stuckAgent fails every turn: the tests below never get as far as the
// pipeline.
type stuckAgent struct{ turns []string }

func (a *stuckAgent) Turn(_ context.Context, wp, prompt string) (string, error) {
	a.turns = append(a.turns, wp)
	return "", context.DeadlineExceeded
}

func newWatcher(t *testing.T) (*Watcher, *stuckAgent) {
	a := &stuckAgent{}
	cfg := config.Default()
	cfg.Reactions.CIFailed = config.Reaction{Action: config.SendToOwner, Retries: 2, EscalateAfter: config.Duration{Duration: time.Hour}}
	return &Watcher{Env: &pipeline.Env{Ledger: memstore.New(), Project: demoPlan()}, Config: cfg, Agent: a}, a
}

func (w *Watcher) reactAll(t *testing.T, pr PRState) []Reaction {
	t.Helper()
	st, err := ReadState(w.Env.Ledger, "demo")
	if err != nil {
		t.Fatal(err)
	}
	var out []Reaction
	sent := false
	for _, it := range st.items(pr) {
		r, err := w.react(context.Background(), st, it, pr, &sent)
		if err != nil {
			t.Fatal(err)
		}
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// openPR records the pull request as a poll sees it, open at head.
func (w *Watcher) openPR(t *testing.T, head string) PRState {
	t.Helper()
	pr := PRState{Project: "demo", Number: 7, Head: head, State: "open"}
	if _, err := prStateKind.Record(w.Env.Ledger, "pr-"+head, pr); err != nil {
		t.Fatal(err)
	}
	return pr
}

func (w *Watcher) check(t *testing.T, id, head, conclusion string) {
	t.Helper()
	k := failedKind
	if conclusion == "success" {
		k = passedKind
	}
	c := Check{Project: "demo", Number: 7, Head: head, Source: "check_run", Name: "test", Conclusion: conclusion, Notes: []Note{{Path: "src/b.go"}}}
	if _, err := k.Record(w.Env.Ledger, id, c); err != nil {
		t.Fatal(err)
	}
}

// A failed check is sent to its owner once per poll, counts its turns,
// escalates when they run out with what was tried, and stays escalated;
// once the check passes, a new failure is a new incident with its
// retries again.
func TestRetriesEscalateAndReset(t *testing.T) {
	w, a := newWatcher(t)
	pr := PRState{Project: "demo", Number: 7, Head: "h1", State: "open"}
	w.check(t, "c1", "h1", "failure")
	for i := 1; i <= 2; i++ {
		rs := w.reactAll(t, pr)
		if len(rs) != 1 || rs[0].Outcome != Failed || rs[0].Attempt != i || rs[0].Step != "turn WP2" {
			t.Fatalf("poll %d: %+v", i, rs)
		}
	}
	rs := w.reactAll(t, pr)
	if len(rs) != 1 || rs[0].Outcome != Escalated || !strings.Contains(rs[0].Reason, "retries ran out") || len(rs[0].Tried) != 2 {
		t.Fatalf("after the retries: %+v", rs)
	}
	if rs := w.reactAll(t, pr); len(rs) != 0 || len(a.turns) != 2 {
		t.Fatalf("an escalated item is left to the supervisor: %+v, %d turns", rs, len(a.turns))
	}
	st, _ := ReadState(w.Env.Ledger, "demo")
	if p := st.pending(w.Env.Project, pr, w.Config.Reactions); len(p) != 1 || !p[0].Escalated || p[0].RetriesLeft != 0 {
		t.Fatalf("pending: %+v", p)
	}
	// It passes on a new head, then fails again: retries anew.
	pr.Head = "h2"
	w.check(t, "c2", "h2", "success")
	w.check(t, "c3", "h2", "failure")
	if rs := w.reactAll(t, pr); len(rs) != 1 || rs[0].Outcome != Failed || rs[0].Attempt != 1 {
		t.Fatalf("a new incident: %+v", rs)
	}
}

// An item still open escalate-after past its first sighting escalates,
// retries left or not.
func TestEscalateAfter(t *testing.T) {
	w, a := newWatcher(t)
	w.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	w.check(t, "c1", "h1", "failure")
	rs := w.reactAll(t, PRState{Project: "demo", Number: 7, Head: "h1", State: "open"})
	if len(rs) != 1 || rs[0].Outcome != Escalated || !strings.Contains(rs[0].Reason, "escalate-after") || len(a.turns) != 0 {
		t.Fatalf("escalate-after: %+v", rs)
	}
}

// Approved and green notifies once per head; an ignored trigger does
// nothing.
func TestNotifyOnceAndIgnore(t *testing.T) {
	w, _ := newWatcher(t)
	pr := PRState{Project: "demo", Number: 7, Head: "h1", State: "open"}
	w.check(t, "c1", "h1", "success")
	if _, err := reviewKind.Record(w.Env.Ledger, "r1", Review{Project: "demo", Number: 7, ID: 1, User: "alice", State: "APPROVED"}); err != nil {
		t.Fatal(err)
	}
	if rs := w.reactAll(t, pr); len(rs) != 1 || rs[0].Outcome != Notified || rs[0].Item != "green:h1" {
		t.Fatalf("approved and green: %+v", rs)
	}
	if rs := w.reactAll(t, pr); len(rs) != 0 {
		t.Fatalf("notified twice: %+v", rs)
	}
	w.Config.Reactions.Comment.Action = config.Ignore
	if _, err := commentKind.Record(w.Env.Ledger, "m1", Comment{Project: "demo", Number: 7, ID: 5, User: "bob", Path: "src/a.go", Body: "nit"}); err != nil {
		t.Fatal(err)
	}
	if rs := w.reactAll(t, pr); len(rs) != 0 {
		t.Fatalf("an ignored comment: %+v", rs)
	}
}

// [policies] notify is run for a notify reaction, with what it is about,
// once; a command that fails is recorded as such and not run again at
// every poll. An escalation runs it too.
func TestNotifyRunsTheCommand(t *testing.T) {
	w, _ := newWatcher(t)
	var got []Notice
	fail := errors.New("notify-send: not found")
	w.Notify = func(_ context.Context, n Notice) error {
		got = append(got, n)
		if n.Event == config.ApprovedAndGreen && n.Item == "green:h2" {
			return fail
		}
		return nil
	}
	pr := PRState{Project: "demo", Number: 7, Head: "h1", State: "open", URL: "https://github.example/acme/app/pull/7"}
	w.check(t, "c1", "h1", "success")
	if _, err := reviewKind.Record(w.Env.Ledger, "r1", Review{Project: "demo", Number: 7, ID: 1, User: "alice", State: "APPROVED"}); err != nil {
		t.Fatal(err)
	}
	if rs := w.reactAll(t, pr); len(rs) != 1 || rs[0].Outcome != Notified {
		t.Fatalf("approved and green: %+v", rs)
	}
	if len(got) != 1 || got[0].Event != config.ApprovedAndGreen || got[0].Item != "green:h1" || got[0].URL != pr.URL || !strings.Contains(got[0].Message, "approved") {
		t.Fatalf("the command was told %+v", got)
	}
	w.reactAll(t, pr)
	if len(got) != 1 {
		t.Fatalf("notified twice: %+v", got)
	}
	pr.Head = "h2"
	w.check(t, "c2", "h2", "success")
	if rs := w.reactAll(t, pr); len(rs) != 1 || rs[0].Outcome != Failed || rs[0].Step != "notify" || !strings.Contains(rs[0].Reason, "not found") {
		t.Fatalf("a failing command: %+v", rs)
	}
	if w.reactAll(t, pr); len(got) != 2 {
		t.Fatalf("a failing command is run again at every poll: %+v", got)
	}
	if _, err := commentKind.Record(w.Env.Ledger, "m1", Comment{Project: "demo", Number: 7, ID: 5, User: "bob", Path: "registry.txt", Body: "sort"}); err != nil {
		t.Fatal(err)
	}
	w.reactAll(t, pr)
	if len(got) != 3 || got[2].Event != EventEscalated || got[2].Item != "comment:5" || !strings.Contains(got[2].Message, "shared file") {
		t.Fatalf("an escalation: %+v", got)
	}
}
