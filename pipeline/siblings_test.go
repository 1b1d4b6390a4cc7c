package pipeline

import (
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
