package watch

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/reactions"
	"github.com/agentproto/agentproto/spend"
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

// Each session, work package and the plan show what they cost; a session
// whose agent reported nothing says unknown, never $0.
func TestTheViewShowsSpend(t *testing.T) {
	wp1 := spend.Total{}
	wp1.Add(spend.Turn{InputTokens: 1000, OutputTokens: 100, CostUSD: 0.02, CostFrom: spend.CostFromAgent})
	var silent, sup spend.Total
	silent.Add(spend.Turn{Unknown: true})
	sup.Add(spend.Turn{InputTokens: 500000, CostUSD: 0.5, CostFrom: spend.CostFromPrices})
	plan := &spend.Plan{Executors: wp1, Supervisor: sup, WPs: map[string]spend.Total{"WP1": wp1}}
	plan.Total.Merge(wp1)
	plan.Total.Merge(sup)
	snap := &Snapshot{Project: "demo", Spend: plan,
		WPs:      []WPRow{{ID: "WP0", State: "planned", Title: "first"}, {ID: "WP1", State: "verified", Title: "second", Spend: &wp1}},
		Sessions: []SessionRow{{ID: "s-1", State: "exited", Spend: wp1}, {ID: "s-2", State: "exited", Spend: silent}}}
	out := Once(snap, 120)
	for _, want := range []string{
		"spend $0.5200 · 501.1k tok · supervisor $0.5000",
		"WP0    planned       -     -               -         first",
		"WP1    verified      -     -               $0.0200   second",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the view lacks %q:\n%s", want, out)
		}
	}
	for _, s := range []struct{ id, want string }{{"s-1", "$0.0200"}, {"s-2", "unknown"}} {
		if !regexp.MustCompile(`(?m)^` + s.id + ` .* ` + regexp.QuoteMeta(s.want) + `$`).MatchString(out) {
			t.Errorf("session %s does not end in %q:\n%s", s.id, s.want, out)
		}
	}
}

// The pull request's section shows its state, the turns left, and first
// what waits for the person watching, with what was tried.
func TestPullRequestSection(t *testing.T) {
	snap := &Snapshot{Project: "demo", PR: &PRRow{Number: 7, State: "open", Head: "abc123", Pending: []reactions.Pending{
		{Item: "comment:5", Trigger: "comment", WPs: []string{"WP1"}, RetriesLeft: 1},
		{Item: "check:lint", Trigger: "ci-failed", WPs: []string{"WP2"}, Escalated: true, Reason: "the retries ran out", Tried: []string{"WP2: failed at consolidate"}},
	}}}
	out := Once(snap, 400)
	head := strings.Index(out, "PULL REQUEST #7 open at abc123 · 2 pending, 1 waiting for you")
	esc := strings.Index(out, "check:lint")
	left := strings.Index(out, "comment:5")
	if head < 0 || esc < head || left < esc {
		t.Fatalf("want the header, then the escalation, then the rest:\n%s", out)
	}
	for _, want := range []string{"[WP2] waiting for you: the retries ran out\n", "\n      tried: WP2: failed at consolidate\n", "pr answer demo ITEM", "[WP1] 1 retries left"} {
		if !strings.Contains(out, want) {
			t.Errorf("the view lacks %q:\n%s", want, out)
		}
	}
	if out := Once(&Snapshot{Project: "demo"}, 120); strings.Contains(out, "PULL REQUEST") {
		t.Errorf("a plan without a polled pull request shows one:\n%s", out)
	}
}
