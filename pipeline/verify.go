package pipeline

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// WaitingDecision is the verdict of a WP whose executor stopped on a
// question (its report's "stopped"): git agentproto plan answer resumes it.
const WaitingDecision = "waiting_decision"

// Verify checks a WP against the disk, never against its report: every
// path changed since the WP's base — committed, staged, unstaged,
// untracked, or hidden from git status — must be in its perimeter (shared
// files are not); nothing outside the worktree may have changed since the
// dispatch; the gate and every script it calls must not mask exit codes;
// the gate is run again here and its exit code is what counts; and the
// report must agree with all that. The verification records the HEAD and
// the tree of the whole state it saw, so later steps accept only that.
func (e *Env) Verify(wpID string, gateTimeout time.Duration) (*Verification, error) {
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	if e, err = e.atFreeze(frozen); err != nil {
		return nil, err
	}
	wp, err := e.Project.WP(wpID)
	if err != nil {
		return nil, err
	}
	m, err := worktree.Load(e.Repo, Slug(e.Project.Name, wp.ID))
	if err != nil {
		return nil, fault.Invalidf("%s has no worktree yet (git agentproto dispatch %s --wp %s)", wp.ID, e.Project.Name, wp.ID)
	}
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	// The base is the ledger's, not the worktree record's: the record
	// sits where the executor can write.
	at := *m
	if b := st.Base(wp.ID); b != "" {
		at.BaseCommit = b
	}
	v := &Verification{Project: e.Project.Name, WP: wp.ID, Worktree: m.Path, Base: at.BaseCommit, Changed: []string{}, OutOfScope: []string{}}
	failing := 0
	fail := func(f string) {
		v.Findings = append(v.Findings, f)
		failing++
	}
	// The state before the gate: independent reads, at once.
	var changes []worktree.Change
	var changedPlan []string
	var before *worktree.KeptState
	err = together(
		func() (err error) { v.Head, err = worktree.Repo(e.Repo, m).Commit("HEAD"); return err },
		func() (err error) {
			if before, err = worktree.KeptStateOf(e.Repo, &at); err == nil {
				v.Tree = before.Tree
			}
			return err
		},
		func() (err error) { changes, err = worktree.Changes(e.Repo, &at); return err },
		func() (err error) { changedPlan, err = e.planChanged(); return err },
	)
	if err != nil {
		return nil, err
	}
	onDisk, err := worktree.DiffTrees(e.Repo, at.BaseCommit, v.Tree)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range changes {
		seen[c.Path] = true
		v.Changed = append(v.Changed, c.Path)
	}
	for _, p := range onDisk {
		if !seen[p] {
			seen[p] = true
			v.Changed = append(v.Changed, p)
			fail("hidden-change: " + p + " differs from the base on disk, but git status does not show it (assume-unchanged, skip-worktree or a file system monitor)")
		}
	}
	sort.Strings(v.Changed)
	for _, p := range v.Changed {
		owners := plans.Owner(e.Project, p)
		if len(owners) != 1 || owners[0] != wp.ID {
			v.OutOfScope = append(v.OutOfScope, p)
		}
	}
	for _, f := range changedPlan {
		fail(f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), gateTimeout)
	defer cancel()
	gate, log := judge.RunGate(ctx, m.Path, frozen.Gate)
	gate.Log = "gate.log"
	v.Gate = gate
	if gate.TimedOut {
		fail(fmt.Sprintf("gate-timeout: the gate did not end within gate_timeout (%s); every process it started was ended", gateTimeout))
	}
	atts := []gitstore.AttachmentInput{{Name: "gate.log", Content: log}}
	masked, inherited := judge.MaskedGate(m.Path, frozen.Gate, func(name string) []byte {
		b, _ := e.Repo.Blob(at.BaseCommit, name)
		return b
	})
	for _, f := range masked {
		fail(f)
	}
	v.Findings = append(v.Findings, inherited...)
	// After the gate, at once: the worktree (what the gate leaves behind
	// was not among what was checked), outside it (what the gate's code
	// wrote counts as much as what the session wrote), and the other WPs'
	// worktrees and branches and the ledger ref.
	d, dispatched := st.LastDispatch(wp.ID)
	var after string
	var outside, siblings, loose []string
	err = together(
		func() (err error) {
			// Most gates leave the worktree as they found it, which the
			// index kept from before tells with one git command; when it
			// cannot tell, the tree is written anew.
			if same, err := before.Unchanged(e.Repo, &at); err == nil && same {
				after = v.Tree
				return nil
			}
			after, err = worktree.StateTree(e.Repo, &at)
			return err
		},
		func() (err error) {
			if dispatched {
				outside, err = outsideFindings(e.Repo, m.Slug, d.Outside)
			}
			return err
		},
		func() (err error) {
			if dispatched {
				siblings, loose, err = e.siblingFindings(st, wp.ID, d)
			}
			return err
		},
	)
	if err != nil {
		return nil, err
	}
	if after != v.Tree {
		wrote, _ := worktree.DiffTrees(e.Repo, v.Tree, after)
		fail("gate-wrote: the gate changed the worktree (" + strings.Join(wrote, ", ") + "); ignore its outputs in .gitignore")
	}
	if dispatched {
		why := ""
		if len(outside) > 0 {
			why = e.unattributed(d, time.Now())
		}
		for _, f := range outside {
			if why != "" {
				v.Unattributed = append(v.Unattributed, f+" ("+why+")")
				continue
			}
			fail(f)
		}
		for _, f := range siblings {
			fail(f)
		}
		v.Unattributed = append(v.Unattributed, loose...)
	} else {
		// Its worktree is a dispatch's: a ledger that holds none lost it.
		fail("no-dispatch: the ledger holds no dispatch of " + wp.ID + " by this clone's pipeline (its record was dropped from the ledger ref, or is not the pipeline's), so what it did outside its worktree cannot be judged; see git agentproto ledger verify, and dispatch it again")
	}

	// The report is read for consolidation and held against the disk; it
	// proves nothing by itself.
	if d, ok := st.LastDispatch(wp.ID); ok && d.Session != "" {
		out, _ := os.ReadFile(sessions.OpenView(e.Repo.CommonDir).OutputPath(d.Session))
		r, err := ParseReport(out)
		switch {
		case err != nil:
			v.Findings = append(v.Findings, "report-malformed: "+err.Error())
		case r == nil:
			v.Findings = append(v.Findings, "report-missing: the session output has no agentproto-report block")
		default:
			v.Report = r
			for _, f := range reportFindings(r, v.Changed, v.OutOfScope, gate) {
				fail(f)
			}
		}
	}
	switch {
	case len(v.Changed) == 0:
		v.Findings = append(v.Findings, "no-changes: nothing changed in the worktree")
	case gate.Piped:
		v.Findings = append(v.Findings, "gate-pipe: the gate pipes its output, so its exit code is not the gate's")
	}
	v.Verdict = Pass
	if v.Report != nil && v.Report.Stopped != nil {
		// A fork is an outcome: the findings above stay for the record,
		// but the WP waits for the supervisor's answer, it did not fail.
		v.Verdict = WaitingDecision
		v.Findings = append(v.Findings, "stopped: "+v.Report.Stopped.Question)
	} else if len(v.OutOfScope) > 0 || gate.ExitCode != 0 || gate.Piped || len(v.Changed) == 0 || failing > 0 {
		v.Verdict = Fail
	}
	if v.Verdict == Pass {
		// Kept for checkpoint; without it, checkpoint writes the tree anew.
		if sum, err := saveVerifiedIndex(e.Repo.CommonDir, before.Index()); err == nil {
			v.Index = sum
		}
	}
	if prev := st.Verifications[wp.ID].Index; prev != v.Index {
		dropVerifiedIndex(e.Repo.CommonDir, prev) // this verification replaces it
	}
	id := fmt.Sprintf("pipeline/%s/%s/verify/%d", e.Project.Name, wp.ID, time.Now().UnixNano())
	if err := e.record(KindVerified, id, v, atts); err != nil {
		return v, err
	}
	return v, nil
}
