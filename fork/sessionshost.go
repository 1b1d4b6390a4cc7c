package fork

import (
	"context"
	"os"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/sessions"
)

// SessionsHost runs branches through a repository's sessions daemon, the
// way sessions start does for a worktree.
type SessionsHost struct {
	Repo   *gitrepo.Repo
	Config config.Config
	// Client returns the daemon's client; it is asked only when a branch
	// needs the daemon.
	Client func() (*sessions.Client, error)
}

func (h SessionsHost) client() (*sessions.Client, error) { return h.Client() }

func (h SessionsHost) Start(spec StartSpec) (string, error) {
	cfg, repo := h.Config, h.Repo
	// The one launch path: the adapter's options, binary and spawn
	// settings (wedge bound, error log) as sessions start would give them.
	l, err := launch.Resolve(cfg, repo.WorkTree, launch.Request{Adapter: spec.Adapter, Env: os.Environ()})
	if err != nil {
		return "", err
	}
	// A branch worktree holds the repository's files: no directory of its
	// own to trust.
	if err := l.RequireTrust(cfg, repo.WorkTree, repo.CommonDir, spec.Dir, ""); err != nil {
		return "", err
	}
	c, err := h.client()
	if err != nil {
		return "", err
	}
	a := l.StartArgs()
	a.Dir, a.Worktree, a.Prompt, a.Label, a.Env, a.Ping = spec.Dir, spec.Worktree, spec.Prompt, spec.Label, os.Environ(), true
	a.Deadline = spec.Deadline
	rec, err := c.Start(context.Background(), *a)
	if rec != nil {
		return rec.ID, err
	}
	return "", err
}

func (h SessionsHost) Kill(id string) error {
	c, err := h.client()
	if err != nil {
		return err
	}
	if !c.Running(context.Background()) {
		return nil // no daemon: nothing of it runs
	}
	_, err = c.Kill(context.Background(), id)
	return err
}

func (h SessionsHost) Wait(id string, timeout time.Duration) error {
	c, err := h.client()
	if err != nil {
		return err
	}
	_, err = c.Wait(context.Background(), []string{id}, sessions.UntilTurnEnd, timeout)
	return err
}

func (h SessionsHost) Ping() error {
	c, err := h.client()
	if err != nil {
		return err
	}
	_, err = c.Ping(context.Background())
	return err
}
