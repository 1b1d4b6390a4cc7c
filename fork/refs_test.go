package fork

import (
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitref"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
	"github.com/agentproto/agentproto/worktree"
)

func testRepo(t *testing.T) *gitrepo.Repo {
	testgit.Isolate(t)
	repo, err := gitrepo.Discover(testgit.Init(t))
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// Reservations racing past the pre-check: the capacity ref's compare-and-
// swap lets exactly max of them through.
func TestReserveHoldsUnderRaces(t *testing.T) {
	repo := testRepo(t)
	const max, racers = 3, 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, full := 0, 0
	for i := 0; i < racers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := reserve(repo, "b"+string(rune('a'+i)), max)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case fault.KindOf(err) == fault.Conflict:
				full++
			default:
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	active, err := activeBranches(repo)
	if err != nil {
		t.Fatal(err)
	}
	if won != max || full != racers-max || len(active) != max {
		t.Fatalf("won %d, refused %d, active %v; want %d of %d", won, full, active, max, racers)
	}
	if err := unreserve(repo, active[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := reserve(repo, "late", max); err != nil {
		t.Fatalf("a released slot is not reusable: %v", err)
	}
}

// One peer, one branch: a live lease refuses another branch, an ended one
// is taken over, a released one handed on; the ref only fast-forwards.
func TestLeaseIsExclusive(t *testing.T) {
	repo := testRepo(t)
	now := time.Now()
	until := now.Add(time.Minute).UTC().Format(time.RFC3339)
	if err := takeLease(repo, lease{Agent: "e1", Branch: "b1", LeaseID: "l1", Until: until}, now); err != nil {
		t.Fatal(err)
	}
	if err := takeLease(repo, lease{Agent: "e1", Branch: "b2", LeaseID: "l2", Until: until}, now); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("a second branch on a leased peer: %v", err)
	}
	if ok, _ := holdsLease(repo, "e1", "l1", now); !ok {
		t.Fatal("the holder lost its lease")
	}
	if ok, _ := holdsLease(repo, "e1", "l1", now.Add(2*time.Minute)); ok {
		t.Fatal("a lease past its end still holds")
	}
	first := refCommit(repo, LeaseRef("e1"))
	if err := takeLease(repo, lease{Agent: "e1", Branch: "b2", LeaseID: "l2", Until: until}, now.Add(2*time.Minute)); err != nil {
		t.Fatalf("taking over an ended lease: %v", err)
	}
	if err := moveLease(repo, "e1", "l1", "released"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := holdsLease(repo, "e1", "l2", now); !ok {
		t.Fatal("the old holder's release took the new holder's lease")
	}
	if _, err := repo.Git("merge-base", "--is-ancestor", first, LeaseRef("e1")); err != nil {
		t.Fatal("the lease ref was rewritten, not fast-forwarded")
	}
}

// Every id ValidateBranchID accepts names valid refs and a valid worktree.
func FuzzBranchID(f *testing.F) {
	for _, s := range []string{"b1", "a-b", "-x", "x/y", "x..y", "", "fork-" + string(make([]byte, 50)), "ab.lock", "Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if ValidateBranchID(id) != nil {
			return
		}
		for _, ref := range []string{SourceRef(id), ResultRef(id)} {
			if !gitref.ValidRefName(ref) {
				t.Fatalf("%q gives the invalid ref %q", id, ref)
			}
		}
		if err := worktree.ValidateSlug("fork-" + id); err != nil {
			t.Fatalf("%q gives an invalid worktree slug: %v", id, err)
		}
	})
}
