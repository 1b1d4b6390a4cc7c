package app

import (
	"context"
	"os"

	"github.com/agentproto/agentproto/fork"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/profiles"
)

// Plugins lists the adapters of the configuration and of PATH, with
// checksum and trust.
func (e *Env) Plugins(ctx context.Context) ([]launch.Plugin, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	return launch.Plugins(cfg, repo.WorkTree), nil
}

// CheckProfiles preflights executor profiles (names; none: all): adapter
// found and pinned, auth supported, key set, model declared. With no
// profile configured and none named it checks nothing.
func (e *Env) CheckProfiles(ctx context.Context, names []string) ([]profiles.Result, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	if len(cfg.Profiles) == 0 && len(names) == 0 {
		return []profiles.Result{}, nil
	}
	return profiles.Check(cfg, repo.WorkTree, names, os.Getenv), nil
}

// Fork is the fork service of the repository: branches of a session run
// side by side in their own clones.
func (e *Env) Fork(ctx context.Context) (*fork.Service, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	l, err := e.Ledger()
	if err != nil {
		return nil, err
	}
	host := fork.SessionsHost{Repo: repo, Config: cfg, Client: e.Sessions}
	return &fork.Service{Repo: repo, Ledger: l, Host: host, MaxBranches: cfg.Fork.MaxBranches, Worktree: cfg.Worktree}, nil
}

// Peers is the peer supervisor protocol's service, fork joined: a fork
// decision is admitted only where the clone's host check passes, and the
// packet lists the live branches.
func (e *Env) Peers(ctx context.Context) (*peers.Service, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	l, err := e.Ledger()
	if err != nil {
		return nil, err
	}
	waiting := func() (any, []error, error) { return pipeline.AllWaitingDecisions(repo.WorkTree, l) }
	svc := fork.Peers(repo, l, func() (*fork.Service, error) { return e.Fork(ctx) }, waiting)
	svc.PullRequests = func() (any, []error, error) {
		// A broken agentproto.toml shows the reactions under the
		// default retries rather than hide them.
		cfg, err := e.Config()
		if err != nil {
			cfg = config.Default()
		}
		return AllPRStatuses(repo, l, cfg.Reactions)
	}
	return svc, nil
}
