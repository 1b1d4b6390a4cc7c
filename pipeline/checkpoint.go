package pipeline

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/worktree"
)

// Checkpoint commits the state the latest passing verification of a WP
// saw — exactly its tree, whose changes are all in the WP's perimeter —
// on top of the HEAD it saw, with a message naming the WP, its frozen
// brief and the verified tree. It refuses when the worktree is no longer
// that state: a change after verify was never checked. The worktree's
// own index is not used, so nothing it has staged goes in by itself. It
// never pushes, and running it again on a checkpointed WP changes nothing.
func (e *Env) Checkpoint(wpID, message string) (*Checkpoint, error) {
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
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	if err := st.refuseUntrusted(e.Project.Name, wp.ID); err != nil {
		return nil, err
	}
	v, ok := st.Verifications[wp.ID]
	if !ok || v.Verdict != Pass {
		return nil, fault.Refusedf("%s has no passing verification; run git agentproto verify %s %s first", wp.ID, e.Project.Name, wp.ID)
	}
	if v.Tree == "" {
		return nil, fault.Refusedf("%s was verified before verifications recorded the state they saw; run git agentproto verify %s %s again", wp.ID, e.Project.Name, wp.ID)
	}
	m, err := worktree.Load(e.Repo, Slug(e.Project.Name, wp.ID))
	if err != nil {
		return nil, err
	}
	wt := worktree.Repo(e.Repo, m)
	h, err := wt.Commit("HEAD")
	if err != nil {
		return nil, err
	}
	headTree, err := wt.Tree("HEAD")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range v.Changed {
		if owners := plans.Owner(e.Project, p); len(owners) == 1 && owners[0] == wp.ID {
			paths = append(paths, p)
		}
	}
	cp := &Checkpoint{Project: e.Project.Name, WP: wp.ID, Commit: h, Paths: paths, Tree: v.Tree}
	moved := VerifiedState(e.Repo, wp.ID, v, h)
	commit := headTree != v.Tree && moved == nil // the verified state is not all committed yet
	if commit && message == "" {
		message = fmt.Sprintf("%s: %s", wp.ID, wp.Title)
	}
	if commit {
		brief, _ := e.Project.BriefPath(wp)
		message += fmt.Sprintf("\n\nagentproto-plan: %s\nagentproto-wp: %s\nagentproto-brief-sha256: %s\nagentproto-verified-tree: %s\n", e.Project.Name, wp.ID, frozen.Files[baseName(brief)], v.Tree)
	}
	// At once: is the disk still the verified state, and the commit that
	// would hold it. The commit is only an object until HEAD names it
	// below, which happens only once the disk is known to be that state.
	var kept *worktree.KeptState
	var c string
	err = together(
		func() (err error) {
			// The index verify kept, if the ledger's hash still names it,
			// tells with one git command whether the disk holds v.Tree.
			if index, ok := loadVerifiedIndex(e.Repo.CommonDir, v.Index); ok {
				k := worktree.KeptStateFrom(v.Tree, index)
				if same, err := k.Unchanged(e.Repo, m); err == nil && same {
					kept = k
					return nil
				}
			}
			kept, err = worktree.KeptStateOf(e.Repo, m)
			return err
		},
		func() (err error) {
			if commit {
				c, err = wt.CommitTree(v.Tree, []string{h}, message)
			}
			return err
		},
	)
	if err != nil {
		return nil, err
	}
	if kept.Tree != v.Tree {
		diff, _ := worktree.DiffTrees(e.Repo, v.Tree, kept.Tree)
		return nil, fault.Refusedf("%s's worktree changed since it was verified (%s); nothing was committed: run git agentproto verify %s %s again", wp.ID, strings.Join(diff, ", "), e.Project.Name, wp.ID)
	}
	if moved != nil {
		return nil, fault.Refusedf("%s's HEAD moved since it was verified: %v", wp.ID, moved)
	}
	if commit {
		if err := wt.UpdateRefLogged("HEAD", c, h, "agentproto checkpoint "+wp.ID); err != nil {
			return nil, err
		}
		// The real index follows HEAD for the committed paths only: the
		// index that built the tree when that is all it changes, else a
		// reset of those paths (literal pathspecs: names, never patterns).
		if len(paths) > 0 {
			adopted, err := kept.Adopt(e.Repo, m, paths)
			if err != nil {
				return nil, err
			}
			if !adopted {
				if _, err := wt.Git(append([]string{"reset", "-q", "--"}, repopath.Pathspecs(paths)...)...); err != nil {
					return nil, err
				}
			}
		}
		cp.Commit = c
	}
	id := fmt.Sprintf("pipeline/%s/%s/checkpoint/%s", e.Project.Name, wp.ID, cp.Commit)
	if err := e.record(KindCheckpointed, id, cp, nil); err != nil {
		return cp, err
	}
	dropVerifiedIndex(e.Repo.CommonDir, v.Index)
	return cp, nil
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
