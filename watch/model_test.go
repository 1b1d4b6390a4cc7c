package watch

import (
	"strings"
	"testing"
)

// When the list re-sorts under it, the selection stays on the session and
// the work package it was on, so the next key acts on the one picked.
func TestSelectionFollowsTheSessionNotTheRow(t *testing.T) {
	m := New(Sources{}, Watched{}, nil, false)
	m.snap = &Snapshot{Sessions: []SessionRow{{ID: "s-a"}, {ID: "s-b"}, {ID: "s-c"}}, WPs: []WPRow{{ID: "WP0"}, {ID: "WP1"}}}
	m.sessSel, m.wpSel = 1, 1
	m.Update(snapMsg{gen: m.gen, snap: &Snapshot{Sessions: []SessionRow{{ID: "s-c"}, {ID: "s-a"}, {ID: "s-b"}}, WPs: []WPRow{{ID: "WP1"}, {ID: "WP0"}}}})
	if got := m.selectedSession(); got != "s-b" {
		t.Errorf("selected session %s after the re-sort, want s-b", got)
	}
	if got := m.selectedWP(); got != "WP1" {
		t.Errorf("selected WP %s after the re-sort, want WP1", got)
	}
	// A session that is gone leaves the selection where it was.
	m.Update(snapMsg{gen: m.gen, snap: &Snapshot{Sessions: []SessionRow{{ID: "s-x"}, {ID: "s-y"}, {ID: "s-z"}}}})
	if m.sessSel != 2 {
		t.Errorf("selection moved to %d when its session left", m.sessSel)
	}
}

// The one-shot view is text: no escape sequence, whatever the styles;
// and rows the height leaves out are said, not dropped in silence.
func TestOnceIsPlainAndSaysWhatItHides(t *testing.T) {
	snap := &Snapshot{}
	for i := 0; i < 30; i++ {
		snap.Sessions = append(snap.Sessions, SessionRow{ID: "s-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), State: "running"})
	}
	out := Once(snap, 120)
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences in the one-shot view: %q", out[:80])
	}
	if !strings.Contains(out, "more sessions") {
		t.Errorf("30 sessions in 24 lines, and nothing says some are hidden:\n%s", out)
	}
}
