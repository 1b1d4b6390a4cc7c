package pipeline

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/gitstore/memstore"
	"github.com/agentproto/agentproto/lessons"
	"github.com/agentproto/agentproto/plans"
)

// ReadState folds one plan's events: the latest of each, every dispatch,
// nothing of another plan; VerdictForBranch finds a worktree's newest
// dispatch.
func TestReadStateFoldsOnePlan(t *testing.T) {
	store := memstore.New()
	env := &Env{Ledger: store, Project: &plans.Project{Name: "p"}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(env.record(KindDispatched, "pipeline/p/WP1/dispatch/1", Dispatch{Project: "p", WP: "WP1", Worktree: "p-wp1", Attempt: 1, Base: "b1"}, nil))
	must(env.record(KindDispatched, "pipeline/p/WP1/dispatch/2", &Dispatch{Project: "p", WP: "WP1", Worktree: "p-wp1", Attempt: 2}, nil))
	must(env.record(KindDispatched, "pipeline/q/WP1/dispatch/1", Dispatch{Project: "q", WP: "WP1", Worktree: "q-wp1"}, nil))
	must(env.record(KindVerified, "pipeline/p/WP1/verify/1", Verification{Project: "p", WP: "WP1", Verdict: Fail}, nil))
	must(env.record(KindVerified, "pipeline/p/WP1/verify/2", Verification{Project: "p", WP: "WP1", Verdict: Pass}, nil))
	must(env.record(KindVerified, "pipeline/q/WP1/verify/1", Verification{Project: "q", WP: "WP1", Verdict: Fail}, nil))
	must(env.record(KindCheckpointed, "pipeline/p/WP1/checkpoint/abc", Checkpoint{Project: "p", WP: "WP1", Commit: "abc"}, nil))
	// Plan pp's ids start with pipeline/p too, but not pipeline/p/.
	must(env.record(KindVerified, "pipeline/pp/WP1/verify/1", Verification{Project: "pp", WP: "WP1", Verdict: Fail}, nil))
	must(env.record(KindCheckpointed, "pipeline/pp/WP2/checkpoint/x", Checkpoint{Project: "pp", WP: "WP2", Commit: "x"}, nil))

	st, err := ReadState(store, "p")
	must(err)
	if len(st.Dispatches["WP1"]) != 2 || st.Dispatches["WP1"][1].Attempt != 2 || st.Base("WP1") != "b1" {
		t.Fatalf("dispatches = %+v", st.Dispatches)
	}
	if !st.Verified("WP1") || st.Checkpoints["WP1"].Commit != "abc" || len(st.Checkpoints) != 1 || st.Consolidated != nil {
		t.Fatalf("state = %+v", st)
	}
	label, verdict, found, err := VerdictForBranch(store, "wt/q-wp1")
	must(err)
	if !found || label != "q WP1" || verdict != Fail {
		t.Fatalf("q: %q %q %v", label, verdict, found)
	}
	if _, _, found, _ := VerdictForBranch(store, "wt/nobody"); found {
		t.Fatal("a branch nobody dispatched was found")
	}
	// The data is checked against the kind's type, and scrubbed of secrets.
	if err := env.record(KindVerified, "pipeline/p/WP1/verify/4", Checkpoint{Project: "p"}, nil); err == nil {
		t.Fatal("a checkpoint was recorded as a verification")
	}
	token := "ghp_" + strings.Repeat("Zx9", 12)
	must(env.record(KindCheckpointed, "pipeline/p/WP2/checkpoint/c2", Checkpoint{Project: "p", WP: "WP2", Commit: token}, nil))
	e, _, err := store.Get("pipeline/p/WP2/checkpoint/c2")
	must(err)
	if strings.Contains(string(e.Data), token) {
		t.Fatalf("a secret was recorded: %s", e.Data)
	}
}

// Each feature owns the kinds the README lists for it.
func TestKindsHaveTheirOwners(t *testing.T) {
	for kind, want := range map[string]string{
		KindDispatched: "pipeline", KindFallback: "pipeline", KindVerified: "pipeline", KindCheckpointed: "pipeline",
		KindConsolidated: "pipeline", KindReviewed: "pipeline", KindE2E: "pipeline", KindPR: "pipeline",
		plans.KindFrozen: "plans", plans.KindAmended: "plans", lessons.Kind: "lessons",
	} {
		if got := gitstore.KindOwner(kind); got != want {
			t.Errorf("owner of %s = %q, want %q", kind, got, want)
		}
	}
}
