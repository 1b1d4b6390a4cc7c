package web

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
)

// Objects reads the git objects the ledger's events name: a gate log's
// blob, the diff between a verified state's base and its tree.
type Objects interface {
	Blob(oid string) ([]byte, error)
	Diff(base, tree string) *Diff
}

// shownEntries is how many of the newest timeline entries the page shows
// open; the earlier ones are folded (a 1,000-event plan painted in 452 ms
// with every row laid out).
const shownEntries = 200

// maxLog bounds the gate log shown: its tail says why a gate failed.
const maxLog = 32 << 10

// Build makes the page of f. objs may be nil: the page then has no logs
// and no diffs.
func Build(f *Facts, objs Objects) *Page {
	pg := &Page{Project: f.Project, Events: len(f.Events), Tip: f.Tip, Built: time.Now().UTC().Format(time.RFC3339),
		Cost: costOf(f.Spend, f.Project)}
	for _, w := range f.Warnings {
		pg.Warnings = append(pg.Warnings, w)
	}
	byID := map[string]*WPView{}
	if fr := f.History.Frozen; fr != nil {
		pg.Frozen, pg.FrozenAt, pg.Base, pg.BaseCommit, pg.Gate, pg.Shared = true, fr.Time, fr.Base, fr.BaseCommit, fr.Gate, f.Shared
		for _, wp := range fr.WPs {
			v := &WPView{ID: wp.ID, Title: wp.Title, Owns: wp.Owns, Reads: wp.Reads, DependsOn: wp.DependsOn, Status: "not-dispatched",
				Cost: pg.Cost.CostOf(wp.ID)}
			pg.WPs = append(pg.WPs, v)
			byID[wp.ID] = v
		}
	}
	wp := func(id string) *WPView {
		if v, ok := byID[id]; ok {
			return v
		}
		// A WP the frozen plan no longer has: shown, never hidden.
		v := &WPView{ID: id, Title: "(not in the frozen plan)", Status: "not-dispatched"}
		pg.WPs = append(pg.WPs, v)
		byID[id] = v
		return v
	}
	tl := &timeline{}
	for i := range f.Events {
		x := &f.Events[i]
		switch {
		case x.Dispatch != nil:
			d := *x.Dispatch
			v := wp(d.WP)
			v.Dispatches = append(v.Dispatches, d)
			v.Status = "dispatched"
			tl.dispatch(x.Time, d)
		case x.Verify != nil:
			v := wp(x.Verify.WP)
			v.Verify, v.Status = x.Verify, x.Verify.Verdict
			v.GateLog, v.GateLogCut, v.Diff = "", 0, nil
			if objs != nil {
				v.GateLog, v.GateLogCut = gateLog(objs, x)
				if x.Verify.Base != "" && x.Verify.Tree != "" {
					v.Diff = objs.Diff(x.Verify.Base, x.Verify.Tree)
				}
			}
			tl.verify(x.Time, x.Verify)
		case x.Checkpoint != nil:
			v := wp(x.Checkpoint.WP)
			v.Checkpoint = x.Checkpoint
			if v.Status == pipeline.Pass {
				v.Status = "checkpointed"
			}
			tl.add(Entry{Time: x.Time, WP: x.Checkpoint.WP, What: "checkpoint", Text: fmt.Sprintf("%d paths committed as %s", len(x.Checkpoint.Paths), short(x.Checkpoint.Commit)), Tone: "ok"})
		case x.Fallback != nil:
			v := wp(x.Fallback.WP)
			v.Fallbacks = append(v.Fallbacks, *x.Fallback)
			tl.add(Entry{Time: x.Time, WP: x.Fallback.WP, What: "fallback", Text: fmt.Sprintf("%s → %s after %s: %s", x.Fallback.From, x.Fallback.To, x.Fallback.Fault, x.Fallback.Reason), Tone: "warn"})
		case x.Accepted != nil:
			v := wp(x.Accepted.WP)
			v.Accepted = append(v.Accepted, *x.Accepted)
			tl.add(Entry{Time: x.Time, WP: x.Accepted.WP, What: "outside accepted", Text: strings.Join(x.Accepted.Changed, ", "), Tone: "warn"})
		case x.Consol != nil:
			pg.Consol = x.Consol
			tl.add(Entry{Time: x.Time, What: "consolidate", Text: fmt.Sprintf("merged %s; %d wiring lines; %d findings", strings.Join(x.Consol.Merged, ", "), len(x.Consol.Wiring), len(x.Consol.Findings)), Tone: tone(x.Consol.OK)})
		case x.Review != nil:
			rv := *x.Review // the findings get their WP below: the facts stay as read
			rv.Findings = slices.Clone(rv.Findings)
			pg.Review = &rv
			tl.add(Entry{Time: x.Time, What: "review", Text: fmt.Sprintf("%d gates re-run, %d findings", len(x.Review.Gates), len(x.Review.Findings)), Tone: tone(x.Review.OK)})
		case x.E2E != nil:
			pg.E2E = x.E2E
			tl.add(Entry{Time: x.Time, What: "e2e", Text: fmt.Sprintf("%d commands", len(x.E2E.Commands)), Tone: tone(x.E2E.OK)})
		case x.PR != nil:
			pg.PR = &PRView{Opened: x.PR}
			tl.add(Entry{Time: x.Time, What: "pull request", Text: fmt.Sprintf("#%d %s", x.PR.Number, x.PR.URL), Tone: "ok"})
		}
	}
	if pg.Review != nil {
		// A finding on a file names no WP: the perimeter that owns the
		// file says whose it is.
		frozen := &plans.Project{Name: f.Project, Plan: plans.Plan{Shared: f.Shared}}
		if fr := f.History.Frozen; fr != nil {
			frozen.Plan.WPs = fr.WPs
		}
		for i := range pg.Review.Findings {
			fd := &pg.Review.Findings[i]
			if fd.WP == "" && fd.File != "" {
				if owners := plans.Owner(frozen, fd.File); len(owners) == 1 && byID[owners[0]] != nil {
					fd.WP = owners[0]
				}
			}
			if fd.WP != "" {
				wp(fd.WP).Findings = append(wp(fd.WP).Findings, *fd)
			}
		}
	}
	for _, v := range pg.WPs {
		pg.Events += sessionsOf(v, f.Sessions, tl)
	}
	pr(pg, f)
	pg.Timeline = tl.sorted()
	if n := len(pg.Timeline) - shownEntries; n > 0 {
		pg.Earlier, pg.Timeline = pg.Timeline[:n], pg.Timeline[n:]
	}
	pg.Queue = rank(pg)
	return pg
}

// gateLog is the tail of a verification's gate log attachment.
func gateLog(objs Objects, x *Fact) (string, int) {
	name := x.Verify.Gate.Log
	if name == "" {
		name = "gate.log"
	}
	for _, a := range x.Attachments {
		if a.Name != name {
			continue
		}
		b, err := objs.Blob(a.OID)
		if err != nil {
			return "(the gate log " + a.OID + " cannot be read: " + err.Error() + ")", 0
		}
		if len(b) > maxLog {
			return string(b[len(b)-maxLog:]), len(b) - maxLog
		}
		return string(b), 0
	}
	return "", 0
}

// pr fills the pull request's part from what reactions recorded.
func pr(pg *Page, f *Facts) {
	st := f.Reactions
	if st == nil || st.PR == nil {
		return
	}
	if pg.PR == nil {
		pg.PR = &PRView{}
	}
	pg.PR.State, pg.PR.Checks, pg.PR.Reviews, pg.PR.Comments = st.PR, st.Checks, st.Reviews, st.Comments
	if f.PRStatus != nil {
		pg.PR.Pending = f.PRStatus.Pending
	}
}

func tone(ok bool) string {
	if ok {
		return "ok"
	}
	return "bad"
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
