package app

import (
	"context"
	"path/filepath"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// manager is the worktree lifecycle of repo; by names the caller in what
// it records, and hook output goes to the front end's log.
func (e *Env) manager(repo *gitrepo.Repo, cfg config.Config, by string) *worktree.Manager {
	return &worktree.Manager{Repo: repo, Config: cfg.Worktree, Out: e.log(), By: by,
		Ledger: func() (gitstore.Store, error) { return e.Ledger() }}
}

// NewWorktreeOptions are the inputs of NewWorktree.
type NewWorktreeOptions struct {
	Slug, Base, Branch string
	NoSetup            bool
	// By names the caller in the worktree's record ("" for the CLI).
	By string
}

// NewWorktree makes a linked worktree: base resolved, setup hooks read
// from the base commit and run only once trusted, the provisioning
// recorded.
func (e *Env) NewWorktree(ctx context.Context, o NewWorktreeOptions) (*worktree.Meta, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	return e.manager(repo, cfg, o.By).New(worktree.CreateOptions{Slug: o.Slug, Base: o.Base, Branch: o.Branch, NoSetup: o.NoSetup})
}

// Worktrees lists the agentproto worktrees, with whether a live session
// runs in each and, with status, their tree state and integration.
func (e *Env) Worktrees(ctx context.Context, status bool) ([]worktree.Listed, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	live := liveWorktrees(repo)
	mg := &worktree.Manager{Repo: repo}
	return mg.List(status, func(m *worktree.Meta) bool { return live[m.Slug] || live[m.Path] })
}

// liveWorktrees are the worktrees a running session is attached to, by
// slug and by path.
func liveWorktrees(repo *gitrepo.Repo) map[string]bool {
	live := map[string]bool{}
	recs, _ := sessions.OpenView(repo.CommonDir).All()
	for _, r := range recs {
		if sessions.Terminal(r.State) {
			continue
		}
		if r.Worktree != "" {
			live[r.Worktree] = true
		}
		live[r.Dir] = true
	}
	return live
}

// Changes lists every path changed in worktree slug relative to its base.
func (e *Env) Changes(ctx context.Context, slug string) ([]worktree.Change, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	m, err := worktree.Load(repo, slug)
	if err != nil {
		return nil, err
	}
	return worktree.Changes(repo, m)
}

// OwnWorktree is the agentproto worktree the repository's work tree is:
// where an executor runs.
func (e *Env) OwnWorktree(ctx context.Context) (*worktree.Meta, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	all, err := worktree.All(repo)
	if err != nil {
		return nil, err
	}
	here, _ := filepath.EvalSymlinks(repo.WorkTree)
	for _, m := range all {
		p, _ := filepath.EvalSymlinks(m.Path)
		if m.Path == repo.WorkTree || (p != "" && p == here) {
			return m, nil
		}
	}
	return nil, fault.Refusedf("%s is not an agentproto worktree; an executor reads only its own worktree's changes", repo.WorkTree)
}

// HookTrust is what TrustHooks found and did.
type HookTrust struct {
	Base, Commit string
	Hooks        *worktree.Hooks
	Trusted      bool
	// Recorded is true when this call trusted the hooks.
	Recorded bool
}

// TrustHooks reads the worktree hooks committed at base (default: [worktree]
// base, origin/HEAD, HEAD) and, unless show, trusts them on this machine.
func (e *Env) TrustHooks(ctx context.Context, base string, show bool) (*HookTrust, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	t := &HookTrust{}
	if t.Base, t.Commit, err = worktree.ResolveBase(repo, base, cfg.Worktree.Base); err != nil {
		return nil, err
	}
	if t.Hooks, err = worktree.HooksAt(repo, t.Commit); err != nil {
		return nil, err
	}
	if t.Trusted, err = worktree.Trusted(repo, t.Hooks); err != nil {
		return nil, err
	}
	if !show && !t.Trusted {
		if t.Recorded, err = worktree.Trust(repo, t.Hooks); err != nil {
			return nil, err
		}
		t.Trusted = true
	}
	return t, nil
}
