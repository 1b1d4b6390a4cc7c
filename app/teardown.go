package app

import (
	"context"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// teardown is the worktree lifecycle for the verbs that take a worktree
// down: they read no configuration, so a broken agentproto.toml does not
// stop them before they start.
func (e *Env) teardown() (*worktree.Manager, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	return &worktree.Manager{Repo: repo, Out: e.log(), Ledger: func() (gitstore.Store, error) { return e.Ledger() }}, nil
}

// RemoveWorktree removes a worktree after its teardown hooks, keeping its
// branch; a dirty tree is refused unless o accepts that loss.
func (e *Env) RemoveWorktree(ctx context.Context, slug string, o worktree.RemoveOptions) (worktree.Removal, error) {
	mg, err := e.teardown()
	if err != nil {
		return worktree.Removal{}, err
	}
	return mg.Remove(slug, o)
}

// ArchiveWorktree saves a worktree's whole state under a salvage ref,
// then removes it.
func (e *Env) ArchiveWorktree(ctx context.Context, slug string) (*worktree.Salvage, error) {
	mg, err := e.teardown()
	if err != nil {
		return nil, err
	}
	return mg.Archive(slug)
}

// RestoreWorktree brings back the latest archived state of a worktree.
func (e *Env) RestoreWorktree(ctx context.Context, slug string) (*worktree.Meta, *worktree.Salvage, error) {
	if err := worktree.ValidateSlug(slug); err != nil {
		return nil, nil, err
	}
	mg, err := e.teardown()
	if err != nil {
		return nil, nil, err
	}
	return mg.Restore(slug)
}

// CollectWorktrees sorts the worktrees into reclaim, salvage and hold; with
// apply it removes and archives. A worktree a live session runs in is
// held.
func (e *Env) CollectWorktrees(ctx context.Context, apply bool) ([]worktree.Collected, error) {
	mg, err := e.teardown()
	if err != nil {
		return nil, err
	}
	live := liveWorktrees(mg.Repo)
	return mg.GC(apply, func(m *worktree.Meta) bool { return live[m.Slug] || live[m.Path] })
}

// CollectSessions cleans settled and dead sessions (with apply) and
// reports idle running ones as orphans. With no daemon running nothing is
// live, and the list is empty.
func (e *Env) CollectSessions(ctx context.Context, apply bool) ([]*sessions.Record, error) {
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	running, err := c.Probe(ctx)
	if err != nil || !running {
		return []*sessions.Record{}, err
	}
	return c.GC(ctx, apply)
}
