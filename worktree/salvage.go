package worktree

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// writeSalvage writes the salvage of m: a commit of the index tree on
// head, a commit of the working tree on that one carrying the metadata,
// and the salvage ref naming it.
func writeSalvage(repo *gitrepo.Repo, m *Meta, head, indexTree, workTree string, now time.Time) (*Salvage, error) {
	s := &Salvage{Head: head, Meta: *m, Archived: now.UTC().Format(time.RFC3339)}
	meta, _ := json.Marshal(s)
	ic, err := repo.CommitTree(indexTree, []string{head}, "agentproto salvage "+m.Slug+": index")
	if err != nil {
		return nil, err
	}
	s.Commit, err = repo.CommitTree(workTree, []string{ic}, "agentproto salvage "+m.Slug+": working tree\n\n"+string(meta))
	if err != nil {
		return nil, err
	}
	s.Ref = SalvagePrefix + m.Slug + "/" + now.UTC().Format("20060102T150405.000000000Z")
	if err := repo.UpdateRef(s.Ref, s.Commit, ""); err != nil {
		return nil, err
	}
	return s, nil
}

// ArchiveBranch saves branch, left without its worktree slug (removed by
// hand, the branch kept), on a salvage ref as Archive saves a worktree,
// then deletes the branch: worktree restore brings both back at path.
func ArchiveBranch(repo *gitrepo.Repo, slug, branch, path string, now time.Time) (*Salvage, error) {
	ref := "refs/heads/" + branch
	tip, err := repo.Commit(ref)
	if err != nil {
		return nil, err
	}
	t, err := repo.Tree(tip)
	if err != nil {
		return nil, err
	}
	m := &Meta{Slug: slug, Path: path, Branch: branch, Base: branch, BaseCommit: tip}
	s, err := writeSalvage(repo, m, tip, t, t, now)
	if err != nil {
		return nil, err
	}
	if err := repo.DeleteRef(ref, tip); err != nil {
		return s, fmt.Errorf("saved branch %s as %s, but deleting it failed: %w", branch, s.Ref, err)
	}
	return s, nil
}
