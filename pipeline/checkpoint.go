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
	// Independent reads, at once: HEAD, its tree, and the state on disk.
	var h, headTree, tree string
	err = together(
		func() (err error) { h, err = wt.Commit("HEAD"); return err },
		func() (err error) {
			// The index verify kept, if the ledger's hash still names it,
			// tells with one git command whether the disk holds v.Tree.
			if index, ok := loadVerifiedIndex(e.Repo.CommonDir, v.Index); ok {
				if same, err := worktree.KeptStateFrom(v.Tree, index).Unchanged(e.Repo, m); err == nil && same {
					tree = v.Tree
					return nil
				}
			}
			tree, err = worktree.StateTree(e.Repo, m)
			return err
		},
		func() (err error) { headTree, err = wt.Tree("HEAD"); return err },
	)
	if err != nil {
		return nil, err
	}
	if tree != v.Tree {
		diff, _ := worktree.DiffTrees(e.Repo, v.Tree, tree)
		return nil, fault.Refusedf("%s's worktree changed since it was verified (%s); nothing was committed: run git agentproto verify %s %s again", wp.ID, strings.Join(diff, ", "), e.Project.Name, wp.ID)
	}
	var paths []string
	for _, p := range v.Changed {
		if owners := plans.Owner(e.Project, p); len(owners) == 1 && owners[0] == wp.ID {
			paths = append(paths, p)
		}
	}
	cp := &Checkpoint{Project: e.Project.Name, WP: wp.ID, Commit: h, Paths: paths, Tree: v.Tree}
	if err := VerifiedState(e.Repo, wp.ID, v, h); err != nil {
		return nil, fault.Refusedf("%s's HEAD moved since it was verified: %v", wp.ID, err)
	}
	if headTree != v.Tree {
		// The verified state is not all committed yet.
		brief, _ := e.Project.BriefPath(wp)
		sha := frozen.Files[baseName(brief)]
		if message == "" {
			message = fmt.Sprintf("%s: %s", wp.ID, wp.Title)
		}
		message += fmt.Sprintf("\n\nagentproto-plan: %s\nagentproto-wp: %s\nagentproto-brief-sha256: %s\nagentproto-verified-tree: %s\n", e.Project.Name, wp.ID, sha, v.Tree)
		c, err := wt.CommitTree(v.Tree, []string{h}, message)
		if err != nil {
			return nil, err
		}
		if err := wt.UpdateRefLogged("HEAD", c, h, "agentproto checkpoint "+wp.ID); err != nil {
			return nil, err
		}
		// The real index follows HEAD for the committed paths only.
		if len(paths) > 0 {
			// Literal pathspecs: names, never patterns.
			if _, err := wt.Git(append([]string{"reset", "-q", "--"}, repopath.Pathspecs(paths)...)...); err != nil {
				return nil, err
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
