package reactions

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
)

func (w *Watcher) answer(t *testing.T, item, choice, note string) (*AnswerResult, error) {
	t.Helper()
	return Answer(w.Env.Ledger, w.Env.Project, w.Config.Reactions, item, choice, note)
}

func (w *Watcher) pendingOf(t *testing.T, pr PRState, item string) (Pending, bool) {
	t.Helper()
	st, err := ReadState(w.Env.Ledger, "demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range st.pending(w.Env.Project, pr, w.Config.Reactions) {
		if p.Item == item {
			return p, true
		}
	}
	return Pending{}, false
}

// The supervisor answers an escalated check with retry: its owner gets
// its turns again, as many as [reactions] gives, and the answer is in
// what was tried when it escalates again. The same answer twice is
// recorded once; an item that waits for nobody is refused.
func TestAnswerRetry(t *testing.T) {
	w, a := newWatcher(t)
	pr := w.openPR(t, "h1")
	w.check(t, "c1", "h1", "failure")
	if _, err := w.answer(t, "check:test", AnswerRetry, ""); fault.KindOf(err) != fault.Refused {
		t.Fatalf("an item not escalated: %v", err)
	}
	for i := 0; i < 3; i++ {
		w.reactAll(t, pr)
	}
	if p, _ := w.pendingOf(t, pr, "check:test"); !p.Escalated || len(a.turns) != 2 {
		t.Fatalf("escalated after 2 turns: %+v, %d turns", p, len(a.turns))
	}
	if _, err := w.answer(t, "check:test", "later", ""); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("a choice that is no answer: %v", err)
	}
	res, err := w.answer(t, "check:test", AnswerRetry, "the flaky runner is fixed")
	if err != nil || !res.Recorded || strings.Join(res.WPs, ",") != "WP2" || len(res.Tried) != 2 {
		t.Fatalf("retry: %+v %v", res, err)
	}
	if again, err := w.answer(t, "check:test", AnswerRetry, "the flaky runner is fixed"); err != nil || again.Recorded {
		t.Fatalf("the same answer again: %+v %v", again, err)
	}
	if p, _ := w.pendingOf(t, pr, "check:test"); p.Escalated || p.RetriesLeft != 2 || p.Attempts != 0 {
		t.Fatalf("pending after retry: %+v", p)
	}
	rs := w.reactAll(t, pr)
	if len(rs) != 1 || rs[0].Outcome != Failed || rs[0].Attempt != 1 || len(a.turns) != 3 {
		t.Fatalf("the turn after retry: %+v", rs)
	}
	w.reactAll(t, pr)
	rs = w.reactAll(t, pr)
	if len(rs) != 1 || rs[0].Outcome != Escalated || !strings.Contains(strings.Join(rs[0].Tried, "; "), "the supervisor answered retry (the flaky runner is fixed)") {
		t.Fatalf("escalated again: %+v", rs)
	}
	// Escalated anew, it takes the same answer as a new one.
	if res, err := w.answer(t, "check:test", AnswerRetry, "the flaky runner is fixed"); err != nil || !res.Recorded {
		t.Fatalf("retry of the second escalation: %+v %v", res, err)
	}
}

// A comment on a shared file has no owner to retry: the supervisor names
// the work package that takes it, which gets the comment; a comment they
// dismiss is done with.
func TestAnswerRouteAndDismiss(t *testing.T) {
	w, a := newWatcher(t)
	pr := w.openPR(t, "h1")
	for id, path := range map[int64]string{5: "registry.txt", 6: "README.md"} {
		if _, err := commentKind.Record(w.Env.Ledger, "m"+path, Comment{Project: "demo", Number: 7, ID: id, User: "bob", Path: path, Body: "sort it"}); err != nil {
			t.Fatal(err)
		}
	}
	if rs := w.reactAll(t, pr); len(rs) != 2 || rs[0].Outcome != Escalated || rs[1].Outcome != Escalated {
		t.Fatalf("comments no WP owns: %+v", rs)
	}
	if _, err := w.answer(t, "comment:5", AnswerRetry, ""); fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), "--choice WPn") {
		t.Fatalf("retry without an owner: %v", err)
	}
	if _, err := w.answer(t, "comment:5", "WP9", ""); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("a WP the plan lacks: %v", err)
	}
	if res, err := w.answer(t, "comment:5", "WP1", "WP1 keeps the registry in order"); err != nil || strings.Join(res.WPs, ",") != "WP1" {
		t.Fatalf("route to WP1: %+v %v", res, err)
	}
	if res, err := w.answer(t, "comment:6", AnswerDismiss, "the README is mine"); err != nil || !res.Recorded || len(res.WPs) != 0 {
		t.Fatalf("dismiss: %+v %v", res, err)
	}
	if p, ok := w.pendingOf(t, pr, "comment:5"); !ok || p.Escalated || strings.Join(p.WPs, ",") != "WP1" || p.RetriesLeft != 1 {
		t.Fatalf("routed comment pending: %+v", p)
	}
	if p, ok := w.pendingOf(t, pr, "comment:6"); ok {
		t.Fatalf("a dismissed comment is still pending: %+v", p)
	}
	rs := w.reactAll(t, pr)
	if len(rs) != 1 || rs[0].Item != "comment:5" || strings.Join(rs[0].WPs, ",") != "WP1" || strings.Join(a.turns, ",") != "WP1" {
		t.Fatalf("the routed comment's turn: %+v, turns %v", rs, a.turns)
	}
	if _, err := w.answer(t, "comment:6", AnswerRetry, ""); fault.KindOf(err) != fault.Refused {
		t.Fatalf("a dismissed item waits for nobody: %v", err)
	}
}

// Where [reactions] escalates at once, an answer naming a work package
// still sends it there, once.
func TestAnswerOverridesEscalateAction(t *testing.T) {
	w, a := newWatcher(t)
	w.Config.Reactions.Comment = config.Reaction{Action: config.Escalate}
	pr := w.openPR(t, "h1")
	if _, err := commentKind.Record(w.Env.Ledger, "m1", Comment{Project: "demo", Number: 7, ID: 5, User: "bob", Path: "src/a.go", Body: "why?"}); err != nil {
		t.Fatal(err)
	}
	if rs := w.reactAll(t, pr); len(rs) != 1 || rs[0].Outcome != Escalated {
		t.Fatalf("action escalate: %+v", rs)
	}
	if _, err := w.answer(t, "comment:5", "WP1", ""); err != nil {
		t.Fatal(err)
	}
	if rs := w.reactAll(t, pr); len(rs) != 1 || rs[0].Outcome != Failed || strings.Join(a.turns, ",") != "WP1" {
		t.Fatalf("answered: %+v, turns %v", rs, a.turns)
	}
}
