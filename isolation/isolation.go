// Package isolation applies the [worktree] isolation policy to a session
// about to start: whether it may run outside an agentproto worktree,
// whether one may be made for it, and which worktree a session started
// from a session runs in.
package isolation

import (
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// Parent is the session the caller runs in ($AGENTPROTO_SESSION, which
// the daemon sets for each session's agent), or nil outside one. Its
// worktree is read from the daemon's record, never from the environment.
func Parent(repo *gitrepo.Repo, getenv func(string) string) (*sessions.Record, error) {
	id := getenv(sessions.SessionEnv)
	if id == "" {
		return nil, nil
	}
	if err := sessions.ValidateID(id); err != nil {
		return nil, fault.Invalidf("$%s: %v", sessions.SessionEnv, err)
	}
	rec, err := sessions.OpenView(repo.CommonDir).Load(id)
	if err != nil {
		return nil, fault.Invalidf("$%s names session %s, which this repository does not know", sessions.SessionEnv, id)
	}
	return rec, nil
}

// Slug is the worktree a session asking for slug runs in: its parent's,
// when it is started from a session that has one, so a child never gets
// a second worktree.
func Slug(parent *sessions.Record, slug string) (string, bool) {
	if parent == nil || parent.Worktree == "" || slug == "" || slug == parent.Worktree {
		return slug, false
	}
	return parent.Worktree, true
}

// CheckCreate refuses, under "never", to make the missing worktree slug.
func CheckCreate(mode, slug string, exists bool) error {
	if mode == config.IsolationNever && !exists {
		return fault.Refusedf("worktree isolation is \"never\" ([worktree] isolation or $%s): worktree %s is not made; run in an existing directory", config.IsolationEnv, slug)
	}
	return nil
}

// CheckDir refuses, under "always", a directory that is not an agentproto
// worktree of repo.
func CheckDir(repo *gitrepo.Repo, mode, dir string) error {
	if mode != config.IsolationAlways {
		return nil
	}
	if m, err := worktree.Load(repo, filepath.Base(dir)); err == nil && samePath(m.Path, dir) {
		return nil
	}
	return fault.Refusedf("worktree isolation is \"always\" ([worktree] isolation or $%s): %s is not an agentproto worktree; start the session with a worktree", config.IsolationEnv, dir)
}

func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return false
	}
	fa, err1 := os.Stat(ra)
	fb, err2 := os.Stat(rb)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
