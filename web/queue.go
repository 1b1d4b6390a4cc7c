package web

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/pipeline"
)

// untestedCodes are the review findings that say a change is not held by
// a test that runs and asserts.
var untestedCodes = map[string]bool{
	"untested": true, "test-lost": true, "test-no-assertion": true, "test-skipped": true, "gate-runs-no-tests": true,
}

// tamperPrefixes are the verify findings that say the evidence itself was
// interfered with, not only that the work is wrong.
var tamperPrefixes = []string{"hidden-change:", "gate-wrote:", "gate-masks-failure", "tampered"}

// rank lists what needs a person on pg, most urgent first: evidence
// tampered with, failed verdicts, error findings, escalated reactions,
// questions waiting, untested changes, shared-file wiring, outside
// changes; and when nothing waits, the next step of the pipeline.
func rank(pg *Page) []QueueItem {
	q := &queue{project: pg.Project}
	for _, v := range pg.WPs {
		q.wp(v)
	}
	if pg.Review != nil {
		for _, f := range pg.Review.Findings {
			q.finding("review", f, "git agentproto review "+pg.Project)
		}
	}
	if pg.Consol != nil {
		for _, f := range pg.Consol.Findings {
			q.finding("consolidate", f, "git agentproto consolidate "+pg.Project+" --dry-run")
		}
		if len(pg.Consol.Wiring) > 0 {
			q.add(QueueItem{Rank: RankWiring, Kind: "wiring", Title: fmt.Sprintf("%d shared-file wiring lines were applied by consolidate", len(pg.Consol.Wiring)),
				Detail: wiringFiles(pg.Consol.Wiring), Command: "git agentproto consolidate " + pg.Project + " --dry-run", Anchor: "consolidate"})
		}
	}
	if pg.PR != nil {
		for _, p := range pg.PR.Pending {
			it := QueueItem{Rank: RankNext, Kind: "reaction", WP: strings.Join(p.WPs, " "), Title: p.Trigger + " " + p.Item + " is open",
				Detail: fmt.Sprintf("%d turns sent, %d left", p.Attempts, p.RetriesLeft), Command: "git agentproto pr watch " + pg.Project + " --once", Anchor: "pr"}
			if p.Escalated {
				it.Rank, it.Kind, it.Title, it.Detail = RankEscalated, "escalated", p.Trigger+" "+p.Item+" escalated: it waits for you", p.Reason
				if len(p.Tried) > 0 {
					it.Detail += " (tried: " + strings.Join(p.Tried, "; ") + ")"
				}
				it.Command = "git agentproto plan status " + pg.Project
			}
			q.add(it)
		}
	}
	if len(q.items) == 0 && pg.Frozen {
		q.add(next(pg))
	}
	sort.SliceStable(q.items, func(i, j int) bool { return q.items[i].Rank < q.items[j].Rank })
	return q.items
}

type queue struct {
	project string
	items   []QueueItem
}

func (q *queue) add(it QueueItem) { q.items = append(q.items, it) }

// wp adds what one work package's verdict asks of a person.
func (q *queue) wp(v *WPView) {
	vf := v.Verify
	if vf == nil {
		return
	}
	anchor := "wp-" + v.ID
	prompt := "git agentproto verify " + q.project + " " + v.ID
	if n := len(v.Sessions); n > 0 {
		prompt = "git agentproto sessions prompt " + v.Sessions[n-1].ID + " --text ..."
	}
	for _, f := range vf.Findings {
		for _, p := range tamperPrefixes {
			if strings.HasPrefix(f, p) {
				q.add(QueueItem{Rank: RankTampered, Kind: "tampered", WP: v.ID, Title: v.ID + ": the verified evidence was interfered with",
					Detail: f, Command: "git agentproto verify " + q.project + " " + v.ID, Anchor: anchor})
				break
			}
		}
	}
	switch vf.Verdict {
	case pipeline.Fail:
		q.add(QueueItem{Rank: RankFailed, Kind: "failed", WP: v.ID, Title: v.ID + " failed verification", Detail: failWhy(vf), Command: prompt, Anchor: anchor})
	case pipeline.WaitingDecision:
		question := ""
		if vf.Report != nil && vf.Report.Stopped != nil {
			question = vf.Report.Stopped.Question
		}
		q.add(QueueItem{Rank: RankDecision, Kind: "decision", WP: v.ID, Title: v.ID + " waits for your decision", Detail: question,
			Command: "git agentproto plan answer " + q.project + " " + v.ID + " --choice ...", Anchor: anchor})
	case pipeline.Pass:
		if vf.Report != nil && len(vf.Report.ExitCodes) == 0 && len(vf.Changed) > 0 {
			q.add(QueueItem{Rank: RankUntested, Kind: "untested", WP: v.ID, Title: v.ID + " passed, but its agent reports running no command",
				Detail: strings.Join(vf.Changed, ", "), Command: "git agentproto review " + q.project, Anchor: anchor})
		}
	}
	if r := vf.Report; r != nil && len(r.Wiring) > 0 {
		files := map[string]bool{}
		for _, w := range r.Wiring {
			files[w.File] = true
		}
		q.add(QueueItem{Rank: RankWiring, Kind: "wiring", WP: v.ID, Title: fmt.Sprintf("%s asks for %d shared-file wiring lines", v.ID, len(r.Wiring)),
			Detail: strings.Join(sortedKeys(files), ", "), Command: "git agentproto consolidate " + q.project + " --dry-run", Anchor: anchor})
	}
	if len(vf.Unattributed) > 0 {
		q.add(QueueItem{Rank: RankOutside, Kind: "outside", WP: v.ID, Title: v.ID + ": changes outside its worktree no one is shown to have made",
			Detail: strings.Join(vf.Unattributed, "; "), Command: "git agentproto verify " + q.project + " " + v.ID + " --accept-outside", Anchor: anchor})
	}
	for _, a := range v.Accepted {
		q.add(QueueItem{Rank: RankOutside, Kind: "outside", WP: v.ID, Title: v.ID + ": outside changes were accepted as the user's",
			Detail: strings.Join(a.Changed, ", "), Command: "git agentproto verify " + q.project + " " + v.ID, Anchor: anchor})
	}
}

// finding adds one review or consolidate finding at its rank.
func (q *queue) finding(from string, f judge.Finding, cmd string) {
	it := QueueItem{Rank: RankErrorFinding, Kind: "finding", WP: f.WP, Title: from + " " + f.Code, Detail: where(f) + f.Message, Command: cmd, Anchor: from}
	switch {
	case f.Code == "tampered":
		it.Rank, it.Kind = RankTampered, "tampered"
	case f.Severity == "warning":
		it.Rank, it.Kind = RankWarning, "warning"
	case untestedCodes[f.Code]:
		it.Rank, it.Kind = RankUntested, "untested"
	}
	q.add(it)
}

// next is the pipeline's next step when nothing waits for a person.
func next(pg *Page) QueueItem {
	it := QueueItem{Rank: RankNext, Kind: "next", Anchor: "wps"}
	all := len(pg.WPs) > 0
	for _, v := range pg.WPs {
		all = all && (v.Status == pipeline.Pass || v.Status == "checkpointed")
	}
	switch {
	case !all:
		it.Title, it.Command = "work packages are still to be run or verified", "git agentproto dispatch "+pg.Project
	case pg.Consol == nil:
		it.Title, it.Command = "every work package passed: consolidate", "git agentproto consolidate "+pg.Project
	case pg.Review == nil:
		it.Title, it.Command = "consolidated: review", "git agentproto review "+pg.Project
	case pg.PR == nil:
		it.Title, it.Command = "reviewed: open the pull request", "git agentproto pr open "+pg.Project
	default:
		it.Title, it.Command, it.Anchor = "nothing waits for you: a person reads the pull request and merges it", "git agentproto pr watch "+pg.Project+" --once", "pr"
	}
	return it
}

func failWhy(v *pipeline.Verification) string {
	var why []string
	if v.Gate.ExitCode != 0 {
		why = append(why, fmt.Sprintf("gate %q exits %d", v.Gate.Command, v.Gate.ExitCode))
	}
	if len(v.OutOfScope) > 0 {
		why = append(why, "out of its perimeter: "+strings.Join(v.OutOfScope, ", "))
	}
	why = append(why, v.Findings...)
	return strings.Join(why, "; ")
}

func where(f judge.Finding) string {
	switch {
	case f.File != "" && f.Line > 0:
		return fmt.Sprintf("%s:%d: ", f.File, f.Line)
	case f.File != "":
		return f.File + ": "
	}
	return ""
}

func wiringFiles(ws []pipeline.AppliedWiring) string {
	files := map[string]bool{}
	for _, w := range ws {
		files[w.File] = true
	}
	return strings.Join(sortedKeys(files), ", ")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
