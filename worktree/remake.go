package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Missing reports whether m's directory is gone (deleted by hand) while
// git's admin entry and our metadata still name it.
func Missing(m *Meta) bool {
	_, err := os.Stat(m.Path)
	return errors.Is(err, fs.ErrNotExist)
}

// Remake puts back a worktree whose directory was deleted by hand, at the
// same path, on the same branch: every commit made in it is on that
// branch, so only what was never committed is gone. It replaces git's
// stale admin entry (what `git worktree prune` would drop) and keeps our
// metadata. Setup hooks do not run again: what they made was in the
// directory, and Remake says so.
func Remake(repo *gitrepo.Repo, m *Meta) error {
	if !Missing(m) {
		return nil
	}
	admin := adminDir(repo, m.Slug)
	if err := os.RemoveAll(admin); err != nil {
		return fmt.Errorf("worktree %s: removing git's entry for the deleted directory: %w", m.Slug, err)
	}
	if _, err := repo.Git("worktree", "add", "--quiet", m.Path, m.Branch); err != nil {
		return fmt.Errorf("worktree %s: making it again from %s: %w (its metadata is gone with git's entry; git agentproto worktree ls shows what is left)", m.Slug, m.Branch, err)
	}
	if _, err := os.Stat(admin); err != nil {
		return fmt.Errorf("worktree %s: git made it again under another entry than %s", m.Slug, admin)
	}
	return writeMeta(repo, m)
}
