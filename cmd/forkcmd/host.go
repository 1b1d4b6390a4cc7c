package forkcmd

import (
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/fork"
)

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
	return &fork.Service{Repo: repo, Ledger: l, Host: fork.SessionsHost{Repo: repo, Config: cfg, Client: f.Sessions}, MaxBranches: cfg.Fork.MaxBranches, Worktree: cfg.Worktree}, nil
}
