package app

import "testing"

// One poll of a plan at a time: while the daemon's poll holds the lock,
// another watcher's poll is skipped; the next one gets it.
func TestOnePollOfAPlanAtATime(t *testing.T) {
	dir := t.TempDir()
	release, err := lockPoll(dir, "demo")
	if err != nil || release == nil {
		t.Fatalf("the first poll: %v", err)
	}
	if again, err := lockPoll(dir, "demo"); err != nil || again != nil {
		t.Fatalf("a second poll of demo while the first runs: %v", err)
	}
	other, err := lockPoll(dir, "other")
	if err != nil || other == nil {
		t.Fatalf("another plan's poll: %v", err)
	}
	other()
	release()
	next, err := lockPoll(dir, "demo")
	if err != nil || next == nil {
		t.Fatalf("the poll after: %v", err)
	}
	next()
}
