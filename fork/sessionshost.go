package fork

import (
	"os"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/profiles"
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
	found, err := host.Discover(spec.Adapter, cfg.Plugins, repo.WorkTree)
	if err != nil {
		return "", err
	}
	launch := profiles.Launch{Adapter: spec.Adapter}
	// A branch worktree holds the repository's files: no directory of its
	// own to trust.
	if err := launch.RequireTrust(cfg, repo.WorkTree, repo.CommonDir, spec.Dir, ""); err != nil {
		return "", err
	}
	c, err := h.client()
	if err != nil {
		return "", err
	}
	resp, err := c.Call(&sessions.Request{Op: "start", Start: &sessions.StartArgs{
		Adapter: spec.Adapter, Path: found.Path, SHA256: found.SHA256, Dir: spec.Dir, Worktree: spec.Worktree,
		Prompt: spec.Prompt, Label: spec.Label, Env: os.Environ(), Options: launch.Options(cfg), Ping: true}})
	if resp != nil && resp.Session != nil {
		return resp.Session.ID, err
	}
	return "", err
}

func (h SessionsHost) Kill(id string) error {
	c, err := h.client()
	if err != nil {
		return err
	}
	if !c.Running() {
		return nil // no daemon: nothing of it runs
	}
	_, err = c.Call(&sessions.Request{Op: "kill", ID: id})
	return err
}

func (h SessionsHost) Wait(id string, timeout time.Duration) error {
	c, err := h.client()
	if err != nil {
		return err
	}
	_, err = c.Call(&sessions.Request{Op: "wait", IDs: []string{id}, Until: "turn-end", Timeout: timeout.String()})
	return err
}

func (h SessionsHost) Ping() error {
	c, err := h.client()
	if err != nil {
		return err
	}
	_, err = c.Call(&sessions.Request{Op: "ping"})
	return err
}
