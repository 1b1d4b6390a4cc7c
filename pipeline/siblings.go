package pipeline

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// A WP that writes into a sibling's worktree, moves a sibling's branch or
// commits by hand on the ledger ref is judged for it in its own verify.
// The outside snapshot leaves those places out, because the siblings and
// the pipeline move them all the time; so each session start also takes
// a sibling snapshot, and verify tells the WP's doings from theirs:
//
//   - a sibling's branch moved, by an entry of its reflog that its own
//     worktree's HEAD log does not hold: it did not come from a commit or
//     a checkpoint in that worktree;
//   - a sibling's worktree changed while its session did nothing (settled
//     or ended before the WP's session started, and not started again);
//   - a commit on this clone's ledger ref that the pipeline did not seal.
//
// Each is laid at the WP's door only when no other session could have
// done it (siblingblame.go); otherwise it is unattributed, which fails the
// wave, not the WP.

// snapshotSiblings takes the sibling snapshot at the start of a session of
// wp: when, the ledger ref's tip, and for each other WP of the plan with a
// worktree its session and checkpoint, its branch's tip and the length of
// that branch's reflog, and, when its session is quiet, its worktree's
// status (a session at work changes its own worktree; it is not judged)
// and since when that status stands ("tree-at:"). What an earlier start of
// the same wave saw stands for this one too (wave may be nil).
func (e *Env) snapshotSiblings(st *State, wp string, wave *waveSeen) (Outside, error) {
	now := time.Now()
	at := now.UTC().Format(time.RFC3339Nano)
	o := Outside{"at": at}
	if ref, err := e.ownLedgerRef(); err == nil && ref != "" {
		o["ledger"] = e.commitOf(ref)
	}
	store := sessions.OpenView(e.Repo.CommonDir)
	var statuses []func() error
	var taken []string
	parts := map[string]Outside{}
	for _, s := range e.Project.Plan.WPs {
		if s.ID == wp {
			continue
		}
		m, err := worktree.Load(e.Repo, Slug(e.Project.Name, s.ID))
		if err != nil || worktree.Missing(m) {
			continue // not made yet, or gone: nothing of it to move
		}
		last, _ := st.LastDispatch(s.ID)
		o["session:"+s.ID] = last.Session
		o["checkpoint:"+s.ID] = st.Checkpoints[s.ID].Commit
		if cp, ok := wave.checkpoint(s.ID); ok {
			o["checkpoint:"+s.ID] = cp.Commit // made for this wave, after st was read
		}
		o["branch:"+s.ID] = worktree.BranchHead(e.Repo, m)
		o["reflog:"+s.ID] = strconv.Itoa(len(reflog(branchLog(e.Repo.CommonDir, m.Branch))))
		rec, err := store.Load(last.Session)
		quiet := func(since time.Time) bool { return last.Session == "" || (err == nil && quietSince(rec, since)) }
		if !quiet(now) {
			continue
		}
		o["tree:"+s.ID] = m.Path
		if t, ok := wave.tree(s.ID); ok && quiet(t.since) && t.checkpoint == o["checkpoint:"+s.ID] {
			maps.Copy(o, t.status)
			o["tree-at:"+s.ID] = t.at
			continue
		}
		part, prefix := Outside{}, "tree:"+s.ID+":"
		parts[s.ID] = part
		taken = append(taken, s.ID)
		statuses = append(statuses, func() error { return part.addStatus(worktree.Repo(e.Repo, m), prefix) })
	}
	// A git status for each quiet sibling — every WP of the earlier
	// waves, so a start in a large plan runs many — at once.
	if err := togetherAtMost(manyAtOnce(), statuses...); err != nil {
		return nil, err
	}
	for _, id := range taken {
		maps.Copy(o, parts[id])
		o["tree-at:"+id] = at
		if wave != nil {
			wave.trees[id] = siblingTree{status: parts[id], at: at, since: now, checkpoint: o["checkpoint:"+id]}
		}
	}
	return o, nil
}

// waveSeen is what the starts of one wave share, under its dispatch lock:
// the checkpoints of the dependencies its WPs start from, and the status
// of each quiet sibling's worktree an earlier start took. Each start
// looked at every worktree of the plan before it again — a git status
// each, so a plan's starts cost the square of its size. A later start
// takes the status from then, with its time, when the sibling has been
// quiet since and not checkpointed since: its verify compares the
// worktree with that earlier state, and lays a change on the WP only when
// no other session was at work since then and every path changed is dated
// after the WP's own start (blame.worktreeWriter).
type waveSeen struct {
	checkpoints map[string]*Checkpoint
	trees       map[string]siblingTree
}

type siblingTree struct {
	status Outside
	at     string    // when it stands from, as the snapshot says it
	since  time.Time // the same
	// checkpoint is the sibling's as the status found it: a checkpoint
	// the wave makes after commits in its worktree, and the status is
	// taken again.
	checkpoint string
}

func newWaveSeen() *waveSeen {
	return &waveSeen{checkpoints: map[string]*Checkpoint{}, trees: map[string]siblingTree{}}
}

func (w *waveSeen) checkpoint(wp string) (*Checkpoint, bool) {
	if w == nil {
		return nil, false
	}
	cp, ok := w.checkpoints[wp]
	return cp, ok
}

func (w *waveSeen) tree(wp string) (siblingTree, bool) {
	if w == nil {
		return siblingTree{}, false
	}
	t, ok := w.trees[wp]
	return t, ok
}

// siblingFindings compares the sibling snapshot of d, wp's latest
// dispatch, with now: findings that are wp's, and those no one WP is
// shown to have made.
func (e *Env) siblingFindings(st *State, wp string, d Dispatch) (fails, unattributed []string, err error) {
	if d.Siblings == "" {
		return nil, nil, nil // dispatched before sibling snapshots were taken
	}
	then, err := loadOutside(e.Repo.CommonDir, d.Siblings)
	if err != nil {
		return []string{fmt.Sprintf("sibling-snapshot: the snapshot of the other WPs taken at dispatch (%.12s) cannot be read (%v), so changes to their worktrees and branches cannot be ruled out", d.Siblings, err)}, nil, nil
	}
	start, err := time.Parse(time.RFC3339Nano, then["at"])
	if err != nil {
		return nil, nil, fmt.Errorf("sibling snapshot %.12s: %q is not a time", d.Siblings, then["at"])
	}
	b := e.newBlame(wp, d)
	add := func(f string, why string) {
		if why != "" {
			unattributed = append(unattributed, f+" ("+why+")")
		} else {
			fails = append(fails, f)
		}
	}
	// The siblings still as the pipeline left them, and the git status
	// of those quiet since, all at once; then the findings, in order.
	type sibling struct {
		id   string
		m    *worktree.Meta
		tree Outside   // its worktree now; nil when not compared
		at   time.Time // since when the snapshot's status of it stands
	}
	var sibs []sibling
	var statuses []func() error
	for _, s := range siblingsIn(then) {
		last, _ := st.LastDispatch(s)
		if last.Session != then["session:"+s] || st.Checkpoints[s].Commit != then["checkpoint:"+s] {
			continue // the pipeline started or checkpointed it since: its own doing
		}
		m, err := worktree.Load(e.Repo, Slug(e.Project.Name, s))
		if err != nil {
			continue
		}
		sib := sibling{id: s, m: m, at: treeSince(then, s, start)}
		if then["tree:"+s] != "" && b.quiet(s, last.Session, sib.at) {
			now := Outside{}
			sib.tree = now
			statuses = append(statuses, func() error { return now.addStatus(worktree.Repo(e.Repo, m), "tree:"+s+":") })
		}
		sibs = append(sibs, sib)
	}
	compared := map[string]bool{}
	for _, sib := range sibs {
		compared[sib.id] = sib.tree != nil
	}
	checks, report := e.verifiedSiblings(st, wp, start, b, compared)
	if err := togetherAtMost(manyAtOnce(), append(statuses, checks...)...); err != nil {
		return nil, nil, err
	}
	report(add)
	for _, sib := range sibs {
		s, m, now := sib.id, sib.m, sib.tree
		for _, mv := range e.outsideMoves(m, then["reflog:"+s]) {
			add(fmt.Sprintf("sibling-branch: %s, %s's branch, moved from %.12s to %.12s at %s, not by a commit in its worktree",
				m.Branch, s, mv.old, mv.new, mv.at.Format(time.RFC3339)), b.branchMover(s, latest(mv.at, start)))
		}
		if now == nil {
			continue
		}
		then := subset(then, "tree:"+s+":")
		if changed := changedPaths(then, now, "tree:"+s+":"); len(changed) > 0 {
			dated := func() bool { return changedSince(m.Path, changed, start) }
			add(fmt.Sprintf("sibling-worktree: %s's worktree %s changed while its session did nothing: %s",
				s, m.Path, strings.Join(changed, ", ")), b.worktreeWriter(sib.at, start, dated))
		}
	}
	for _, id := range e.handMadeSince(then["ledger"]) {
		add("ledger-forged: "+id+" was committed on the ledger ref since "+wp+" was dispatched, and not by the pipeline (no valid seal)", b.writer(start))
	}
	return fails, unattributed, nil
}

// treeSince is since when a snapshot's status of sibling s stands: its
// own time, or the earlier one of the start of the wave that took it.
func treeSince(o Outside, s string, start time.Time) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, o["tree-at:"+s]); err == nil && t.Before(start) {
		return t
	}
	return start
}

// changedSince reports whether every changed path is in the worktree at
// root with a change time at or after t, which no one can set back: a
// path gone cannot be dated.
func changedSince(root string, changed []string, t time.Time) bool {
	for _, p := range changed {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || time.Unix(st.Ctim.Sec, st.Ctim.Nsec).Before(t) {
			return false
		}
	}
	return true
}

// siblingsIn lists the WPs a snapshot holds, sorted.
func siblingsIn(o Outside) []string {
	var out []string
	for k := range o {
		if s, ok := strings.CutPrefix(k, "branch:"); ok {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func subset(o Outside, prefix string) Outside {
	out := Outside{}
	for k, v := range o {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// changedPaths names the paths whose status entry differs, sorted.
func changedPaths(then, now Outside, prefix string) []string {
	var out []string
	for k, v := range now {
		if then[k] != v {
			out = append(out, strings.TrimPrefix(k, prefix))
		}
	}
	for k := range then {
		if _, ok := now[k]; !ok {
			out = append(out, strings.TrimPrefix(k, prefix))
		}
	}
	sort.Strings(out)
	return out
}

func branchLog(common, branch string) string {
	return filepath.Join(common, "logs", "refs", "heads", filepath.FromSlash(branch))
}
