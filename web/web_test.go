package web

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
)

// hostile is what an agent may write into its report or a finding.
const hostile = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`

// fakeObjects serves blobs from a map and a fixed diff.
type fakeObjects map[string]string

func (f fakeObjects) Blob(oid string) ([]byte, error) { return []byte(f[oid]), nil }
func (f fakeObjects) Diff(base, tree string) *Diff {
	return &Diff{Base: base, Tree: tree, Files: []FileStat{{Path: "b/x.txt", Added: 2}}, Added: 2, Text: "+" + hostile + "\n"}
}

// threeWPs are the facts of a plan of three WPs: WP0 passed, WP1 failed
// verification (out of its perimeter, gate exit 1) with a hostile report,
// WP2 passed; the review found an error in WP2.
func threeWPs() *Facts {
	f := &Facts{Project: "demo", Sessions: map[string][]SessionEvent{}, Tip: "pipeline/demo/WP2/verify/3"}
	f.History = &plans.History{Frozen: &plans.Frozen{Project: "demo", Base: "main", BaseCommit: "0123456789abcdef", Gate: "sh test.sh", Time: "2026-01-02T03:04:05Z",
		WPs: []plans.WP{{ID: "WP0", Title: "a", Owns: []string{"a/**"}}, {ID: "WP1", Title: "b", Owns: []string{"b/**"}, DependsOn: []string{"WP0"}}, {ID: "WP2", Title: "c", Owns: []string{"c/**"}, DependsOn: []string{"WP0"}}}}}
	at := func(s string) string { return "2026-01-02T03:04:" + s + "Z" }
	for i, wp := range []string{"WP0", "WP1", "WP2"} {
		f.Events = append(f.Events, Fact{Time: at("1" + string(rune('0'+i))), Kind: pipeline.KindDispatched,
			Dispatch: &pipeline.Dispatch{Project: "demo", WP: wp, Session: "s-" + wp, Adapter: "scripted", Attempt: 1}})
		f.Sessions["s-"+wp] = []SessionEvent{{Time: at("2" + string(rune('0'+i))), Kind: "session_settled", Session: "s-" + wp, Turn: 1}}
	}
	verify := func(wp, verdict string, exit int, out []string, rep *pipeline.Report) Fact {
		return Fact{Time: at("30"), Kind: pipeline.KindVerified, Attachments: []gitstore.Attachment{{Name: "gate.log", OID: "log-" + wp}},
			Verify: &pipeline.Verification{Project: "demo", WP: wp, Base: "base", Tree: "tree-" + wp, Changed: []string{strings.ToLower(wp[2:]) + "/x.txt"},
				OutOfScope: out, Gate: judge.Gate{Command: "sh test.sh", ExitCode: exit, Log: "gate.log"}, Report: rep, Verdict: verdict}}
	}
	f.Events = append(f.Events,
		verify("WP0", pipeline.Pass, 0, nil, &pipeline.Report{WP: "WP0", ExitCodes: []pipeline.ExitCode{{Command: "sh test.sh"}}}),
		verify("WP1", pipeline.Fail, 1, []string{"stray-b.txt"}, &pipeline.Report{WP: "WP1", DesignChoices: []string{hostile}, ExitCodes: []pipeline.ExitCode{{Command: "sh test.sh"}}}),
		verify("WP2", pipeline.Pass, 0, nil, &pipeline.Report{WP: "WP2", ExitCodes: []pipeline.ExitCode{{Command: "sh test.sh"}}}),
		Fact{Time: at("40"), Kind: pipeline.KindReviewed, Review: &pipeline.ReviewResult{Project: "demo",
			Findings: []judge.Finding{{Code: "test-lost", File: "c/x_test.go", Line: 3, Message: "a test of the base is gone", Severity: "error"},
				{Code: "gate-failed", WP: "WP1", Message: hostile}}}})
	return f
}

func TestBuildRanksAFailedVerdictFirstWithItsCommand(t *testing.T) {
	pg := Build(threeWPs(), fakeObjects{"log-WP1": "FAIL: b is wrong\n"})
	if len(pg.WPs) != 3 || pg.WPs[1].Status != pipeline.Fail || pg.WPs[0].Status != pipeline.Pass {
		t.Fatalf("work packages: %+v", pg.WPs)
	}
	if pg.WPs[1].GateLog != "FAIL: b is wrong\n" || pg.WPs[1].Diff == nil || pg.WPs[1].Diff.Added != 2 {
		t.Fatalf("WP1's evidence: log %q diff %+v", pg.WPs[1].GateLog, pg.WPs[1].Diff)
	}
	if len(pg.Queue) < 3 {
		t.Fatalf("queue: %+v", pg.Queue)
	}
	first := pg.Queue[0]
	if first.Kind != "failed" || first.WP != "WP1" || first.Command != "git agentproto sessions prompt s-WP1 --text ..." || !strings.Contains(first.Detail, "stray-b.txt") {
		t.Fatalf("first in the queue: %+v", first)
	}
	var kinds []string
	for _, it := range pg.Queue {
		kinds = append(kinds, it.Kind)
	}
	// The review's gate-failed is an error; its test-lost is an untested change, below it.
	if got := strings.Join(kinds, " "); got != "failed finding untested" {
		t.Fatalf("queue order: %s", got)
	}
	if len(pg.WPs[2].Findings) != 1 || pg.WPs[2].Findings[0].Code != "test-lost" {
		t.Fatalf("WP2's findings: %+v", pg.WPs[2].Findings)
	}
	var waves []int
	for _, e := range pg.Timeline {
		if e.What == "dispatch" {
			waves = append(waves, e.Wave)
		}
	}
	if len(waves) != 3 || waves[0] != 1 || waves[2] != 1 {
		t.Fatalf("three dispatches launched together are one wave: %v", waves)
	}
}

func TestTheNextStepIsQueuedWhenNothingWaits(t *testing.T) {
	f := threeWPs()
	f.Events = f.Events[:len(f.Events)-1] // no review
	f.Events[4].Verify.Verdict, f.Events[4].Verify.OutOfScope, f.Events[4].Verify.Gate.ExitCode = pipeline.Pass, nil, 0
	pg := Build(f, nil)
	if len(pg.Queue) != 1 || pg.Queue[0].Command != "git agentproto consolidate demo" {
		t.Fatalf("queue: %+v", pg.Queue)
	}
}

func TestAgentTextIsRenderedAsText(t *testing.T) {
	pg := Build(threeWPs(), fakeObjects{"log-WP1": hostile})
	for _, live := range []bool{true, false} {
		var b bytes.Buffer
		if err := Render(&b, pg, live, "tok"); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "<img") || strings.Contains(out, "<script>window") || strings.Contains(out, "onerror=\"") {
			t.Fatalf("agent text is markup in the page (live %v)", live)
		}
		// Report, finding, gate log and diff: each shows the text.
		if n := strings.Count(out, "&lt;script&gt;window.__pwned=1&lt;/script&gt;"); n < 4 {
			t.Fatalf("the hostile text is shown %d times, want 4 (report, finding, log, diff); live %v", n, live)
		}
		scripts := strings.Count(out, "<script")
		if live && scripts != 1 || !live && scripts != 0 {
			t.Fatalf("live %v: %d script elements", live, scripts)
		}
	}
}

func TestExportFetchesNothing(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, Build(threeWPs(), nil), false, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
		t.Fatal("the export has no policy forbidding fetches")
	}
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("the export holds %q", bad)
		}
	}
	if m := regexp.MustCompile(`<[^>]*\s(src|srcset|data)=`).FindString(out); m != "" {
		t.Errorf("the export has an element that fetches: %s", m)
	}
	if !strings.Contains(out, "WP1 failed verification") {
		t.Error("the export lacks the queue")
	}
}

func TestALongTimelineFoldsItsEarlierEntries(t *testing.T) {
	f := threeWPs()
	for i := range 300 {
		f.Events = append(f.Events, Fact{Time: "2026-01-02T04:00:00Z", Kind: pipeline.KindCheckpointed,
			Checkpoint: &pipeline.Checkpoint{Project: "demo", WP: "WP0", Commit: strings.Repeat("c", i%5+1)}})
	}
	pg := Build(f, nil)
	if len(pg.Timeline) != shownEntries || len(pg.Earlier)+len(pg.Timeline) < 300 || pg.Timeline[len(pg.Timeline)-1].What != "checkpoint" {
		t.Fatalf("%d shown, %d folded", len(pg.Timeline), len(pg.Earlier))
	}
	var b bytes.Buffer
	if err := Render(&b, pg, false, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<details id="earlier"><summary>`) {
		t.Fatal("the earlier entries are not folded")
	}
}
