package fork

import (
	"testing"
	"time"

	"github.com/agentproto/agentproto/gitstore"
)

// An admission whose process died before it took a lease holds capacity
// only for the lease's length; then the next reconcile expires it and
// gives the capacity back.
func TestAbandonedAdmissionExpires(t *testing.T) {
	repo := testRepo(t)
	s := &Service{Repo: repo, Ledger: gitstore.Open(repo, gitstore.Options{})}
	a := Admission{BranchID: "b1", SourceAgent: "src", LeaseSeconds: 60, SourceStateRef: SourceRef("b1")}
	for _, k := range []string{KindProposed, KindAdmitted} {
		if _, err := s.append(k, recordID("b1", k), a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := reserve(repo, "b1", 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Reconcile(); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("b1"); b.State != StateAdmitted {
		t.Fatalf("within the lease's length the admission is %s", b.State)
	}
	s.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if err := s.Reconcile(); err != nil {
		t.Fatal(err)
	}
	b, _ := s.Get("b1")
	if b.State != StateExpired || b.Outcome == nil || b.Outcome.Cause != "admission_abandoned" {
		t.Fatalf("after the lease's length: %+v", b)
	}
	if active, _ := activeBranches(repo); len(active) != 0 {
		t.Fatalf("the capacity is still held: %v", active)
	}
}
