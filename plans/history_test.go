package plans

import (
	"testing"

	"github.com/agentproto/agentproto/gitstore/memstore"
)

// The history of a plan is its latest freeze and the amendments after it;
// other plans' events do not count.
func TestReadHistoryKeepsAmendmentsAfterTheLatestFreeze(t *testing.T) {
	store := memstore.New()
	rec := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := amendedKind.Record(store, "plan/p/amend/0", Amendment{Project: "p", Correction: "before any freeze"})
	rec(err)
	_, err = frozenKind.Record(store, "plan/p/frozen/1", Frozen{Project: "p", Base: "main", Files: map[string]string{"SPEC.md": "a"}})
	rec(err)
	_, err = amendedKind.Record(store, "plan/p/amend/1", Amendment{Project: "p", Correction: "one", SpecSHA256: "b"})
	rec(err)
	_, err = frozenKind.Record(store, "plan/p/frozen/2", Frozen{Project: "p", Base: "main", Files: map[string]string{"SPEC.md": "c"}})
	rec(err)
	_, err = frozenKind.Record(store, "plan/q/frozen/1", Frozen{Project: "q", Base: "dev"})
	rec(err)
	_, err = amendedKind.Record(store, "plan/p/amend/2", Amendment{Project: "p", Correction: "two", SpecSHA256: "d"})
	rec(err)
	_, err = amendedKind.Record(store, "plan/p/amend/3", Amendment{Project: "p", Correction: "three", SpecSHA256: "e"})
	rec(err)
	_, err = amendedKind.Record(store, "plan/q/amend/1", Amendment{Project: "q", Correction: "other plan"})
	rec(err)

	h, err := ReadHistory(store, "p")
	rec(err)
	if h.Frozen == nil || h.Frozen.RecordID != "plan/p/frozen/2" || h.Frozen.Time == "" {
		t.Fatalf("frozen = %+v", h.Frozen)
	}
	if len(h.Amendments) != 2 || h.Amendments[0].Correction != "two" || h.Amendments[1].Correction != "three" {
		t.Fatalf("amendments = %+v", h.Amendments)
	}
	if got := h.expected()["SPEC.md"]; got != "e" {
		t.Fatalf("expected SPEC.md hash = %q, want the latest amendment's", got)
	}
	none, err := ReadHistory(store, "r")
	rec(err)
	if none.Frozen != nil || len(none.Amendments) != 0 {
		t.Fatalf("history of an unknown plan = %+v", none)
	}
}
