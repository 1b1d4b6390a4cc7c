package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// A sibling's status taken by an earlier start of the wave stands from
// then: verify compares with it, and blames, over the longer time. A time
// that is not earlier, or not a time, leaves the snapshot's own.
func TestTreeSinceIsWhenTheStatusWasTaken(t *testing.T) {
	start := time.Date(2026, 12, 6, 6, 0, 0, 500, time.UTC)
	earlier := start.Add(-40 * time.Millisecond)
	o := Outside{
		"tree-at:WP0": earlier.Format(time.RFC3339Nano),
		"tree-at:WP1": start.Add(time.Second).Format(time.RFC3339Nano),
		"tree-at:WP2": "yesterday",
	}
	for s, want := range map[string]time.Time{"WP0": earlier, "WP1": start, "WP2": start, "WP3": start} {
		if got := treeSince(o, s, start); !got.Equal(want) {
			t.Errorf("%s: since %s, want %s", s, got, want)
		}
	}
}

// A change found against an earlier start's status is dated by each
// path's change time, which no one can set back: a path changed before
// the WP's start, even with its modification time set forward, or gone,
// is not dated after it.
func TestChangedSinceDatesEveryPathByItsChangeTime(t *testing.T) {
	root := t.TempDir()
	write := func(p string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old.txt")
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "old.txt"), future, future) // a forward mtime dates nothing
	time.Sleep(50 * time.Millisecond)                          // past the file system's clock tick
	start := time.Now()
	time.Sleep(50 * time.Millisecond)
	write("new.txt")
	write("a b/c.txt")
	for _, c := range []struct {
		changed []string
		want    bool
	}{
		{[]string{"new.txt", "a b/c.txt"}, true},
		{[]string{"new.txt", "old.txt"}, false},
		{[]string{"gone.txt"}, false},
	} {
		if got := changedSince(root, c.changed, start); got != c.want {
			t.Errorf("%v: %v, want %v", c.changed, got, c.want)
		}
	}
}

// A change in a sibling's worktree found against a status from before the
// WP's start is laid on the WP, unconfined and alone at work, only when
// it is dated after that start; against the WP's own status, as before.
func TestWorktreeWriterDatesBorrowedStatuses(t *testing.T) {
	start := time.Date(2026, 12, 6, 6, 0, 0, 0, time.UTC)
	own := &sessions.Record{ID: "s-own", State: sessions.StateSettled, Created: start.Add(time.Millisecond), LastActivity: start.Add(time.Second)}
	b := &blame{wp: "WP2", project: "demo", own: own, all: []*sessions.Record{own}, now: start.Add(time.Minute)}
	dated := func(v bool) func() bool { return func() bool { return v } }
	if why := b.worktreeWriter(start, start, dated(false)); why != "" {
		t.Errorf("against its own status: %q, want the WP's", why)
	}
	if why := b.worktreeWriter(start.Add(-time.Second), start, dated(true)); why != "" {
		t.Errorf("borrowed, dated after its start: %q, want the WP's", why)
	}
	if why := b.worktreeWriter(start.Add(-time.Second), start, dated(false)); !strings.Contains(why, "not shown to be WP2's") {
		t.Errorf("borrowed, not dated: %q, want it unattributed", why)
	}
}
