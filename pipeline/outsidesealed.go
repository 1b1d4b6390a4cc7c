package pipeline

import (
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/worktree"
)

// snapshotSealed is the snapshot of a session that may write nothing
// outside its worktree (a scout, a reviewer): SnapshotOutside, plus the
// project's wt/PROJECT-* branches but its own, which a WP's snapshot
// leaves out because its neighbours move them.
func snapshotSealed(repo *gitrepo.Repo, slug, project string) (Outside, error) {
	o, err := SnapshotOutside(repo, slug)
	if err != nil {
		return nil, err
	}
	refs, err := repo.Refs("refs/heads/" + worktree.BranchPrefix + project + "-*")
	if err != nil {
		return nil, err
	}
	own := "refs/heads/" + worktree.BranchPrefix + slug
	for _, r := range refs {
		if r.Name != own {
			o["ref:"+r.Name] = r.ID
		}
	}
	return o, nil
}

// changedSealed lists the places that moved since the snapshotSealed
// then, kept in memory by the caller that waits for the session.
func changedSealed(repo *gitrepo.Repo, slug, project string, then Outside) ([]string, error) {
	now, err := snapshotSealed(repo, slug, project)
	if err != nil {
		return nil, err
	}
	return diffOutside(repo.CommonDir, then, now), nil
}
