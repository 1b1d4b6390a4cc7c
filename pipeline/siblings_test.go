package pipeline

import (
	"strconv"
	"testing"
	"time"
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

// A change found against an earlier start's status is laid on the WP only
// when every path changed is there now and dated at or after the WP's own
// start: a path gone, back to its committed state, or older may be
// someone else's doing from before its session was there.
func TestChangedSinceDatesEveryPath(t *testing.T) {
	start := time.Date(2026, 12, 6, 6, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return " 100644 2 " + strconv.FormatInt(start.Add(d).UnixNano(), 10) }
	now := Outside{
		"tree:WP0:new.txt":   "??" + at(time.Millisecond),
		"tree:WP0:same.txt":  " M" + at(0),
		"tree:WP0:old.txt":   " M" + at(-time.Millisecond),
		"tree:WP0:gone.txt":  " D absent",
		"tree:WP0:a b/c.txt": "??" + at(time.Second),
	}
	for _, c := range []struct {
		changed []string
		want    bool
	}{
		{[]string{"new.txt", "same.txt", "a b/c.txt"}, true},
		{[]string{"new.txt", "old.txt"}, false},
		{[]string{"gone.txt"}, false},
		{[]string{"reverted.txt"}, false}, // in the snapshot's status, not in today's
	} {
		if got := changedSince(now, "tree:WP0:", c.changed, start); got != c.want {
			t.Errorf("%v: %v, want %v", c.changed, got, c.want)
		}
	}
}
