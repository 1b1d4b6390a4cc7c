package pipeline

import (
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

// One launch of a plan at a time: a second waits for the first, and gives
// up with a conflict when the first holds on past the bound; another
// plan's lock is its own.
func TestLockDispatchSerialisesOnePlan(t *testing.T) {
	dir := t.TempDir()
	release, err := lockDispatch(dir, "demo", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockDispatch(dir, "demo", 100*time.Millisecond); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("a second launch of demo while the first holds the lock: %v", err)
	}
	other, err := lockDispatch(dir, "other", 100*time.Millisecond)
	if err != nil {
		t.Fatalf("another plan waits on demo's lock: %v", err)
	}
	other()
	got := make(chan error, 1)
	go func() {
		r, err := lockDispatch(dir, "demo", 10*time.Second)
		if err == nil {
			r()
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond)
	release()
	if err := <-got; err != nil {
		t.Fatalf("the waiting launch did not get the lock once released: %v", err)
	}
}
