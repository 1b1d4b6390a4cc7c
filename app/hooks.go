package app

import (
	"context"
	"io"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/hooks"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/pipeline"
)

// HookPrePush is the git hook agentproto installs by default.
const HookPrePush = hooks.HookPrePush

// Hook is what installing or removing agentproto's block did. The fields
// are in the order of their JSON names, as the map it replaced printed
// them.
type Hook struct {
	Changed bool   `json:"changed"`
	Hook    string `json:"hook"`
	Path    string `json:"path"`
}

// InstallHook adds agentproto's block to git hook name, keeping what
// else the hook holds; Changed is false when the block was there.
func (e *Env) InstallHook(ctx context.Context, name string) (*Hook, error) {
	return e.hook(name, hooks.Install)
}

// UninstallHook removes agentproto's block from git hook name, keeping
// the rest; Changed is false when there was none.
func (e *Env) UninstallHook(ctx context.Context, name string) (*Hook, error) {
	return e.hook(name, hooks.Uninstall)
}

func (e *Env) hook(name string, fn func(repo *gitrepo.Repo, hook string) (string, bool, error)) (*Hook, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	path, changed, err := fn(repo, name)
	if err != nil {
		return nil, err
	}
	return &Hook{Changed: changed, Hook: name, Path: path}, nil
}

// PrePush is agentproto's part of git's pre-push hook: the pushed refs
// come on in, as git gives them; what it says goes to out. It refuses a
// push when the ledger does not verify or a work package's branch goes
// out at a commit its latest passing verification did not see.
func (e *Env) PrePush(ctx context.Context, remote, url string, in io.Reader, out io.Writer) error {
	repo, err := e.Repo()
	if err != nil {
		return err
	}
	refs, err := hooks.ParsePushedRefs(in)
	if err != nil {
		return err
	}
	p := &hooks.PrePush{Repo: repo, Remote: remote, URL: url, Refs: refs, Out: out}
	return p.Run(hooks.PrePushOptions{
		BranchVerified: func(l *gitstore.Ledger, branch, commit string) error {
			return pipeline.CheckBranchCommit(repo, l, branch, commit)
		},
		PushLedger: func() (bool, error) {
			cfg, err := e.Config()
			return cfg.Sync.PushOnPrePush, err
		},
	})
}

// Sync fetches the other writers' ledger refs from remote (default:
// [sync] remote) and pushes this clone's own.
func (e *Env) Sync(ctx context.Context, remote string) (*gitstore.SyncReport, error) {
	if remote == "" {
		cfg, err := e.Config()
		if err != nil {
			return nil, err
		}
		remote = cfg.Sync.Remote
	}
	l, err := e.Ledger()
	if err != nil {
		return nil, err
	}
	return l.Sync(remote)
}
