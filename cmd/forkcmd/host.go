package forkcmd

import (
	"os"
	"time"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/fork"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
)

// daemonHost runs branches through this repository's sessions daemon, the
// way sessions start does for a worktree.
type daemonHost struct{ f *cmdutil.Factory }

func (h daemonHost) client() (*sessions.Client, error) { return h.f.Sessions() }

func (h daemonHost) Start(spec fork.StartSpec) (string, error) {
	cfg, _, err := h.f.Config()
	if err != nil {
		return "", err
	}
	repo, err := h.f.Repo()
	if err != nil {
		return "", err
	}
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

func (h daemonHost) Kill(id string) error {
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

func (h daemonHost) Wait(id string, timeout time.Duration) error {
	c, err := h.client()
	if err != nil {
		return err
	}
	_, err = c.Call(&sessions.Request{Op: "wait", IDs: []string{id}, Until: "turn-end", Timeout: timeout.String()})
	return err
}

func (h daemonHost) Ping() error {
	c, err := h.client()
	if err != nil {
		return err
	}
	_, err = c.Call(&sessions.Request{Op: "ping"})
	return err
}

// Service builds the fork service of the factory's repository.
func Service(f *cmdutil.Factory) (*fork.Service, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, err
	}
	l, err := f.Ledger()
	if err != nil {
		return nil, err
	}
	cfg, _, err := f.Config()
	if err != nil {
		return nil, err
	}
	return &fork.Service{Repo: repo, Ledger: l, Host: daemonHost{f}, MaxBranches: cfg.Fork.MaxBranches, WorktreeRoot: cfg.Worktree.Root}, nil
}
