package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

type worktreeNewIn struct {
	Slug    string `json:"slug" jsonschema:"the worktree's name; its branch is wt/SLUG"`
	Base    string `json:"base,omitempty" jsonschema:"base revision (default: [worktree] base, origin/HEAD, HEAD)"`
	NoSetup bool   `json:"no_setup,omitempty" jsonschema:"skip the setup hooks and copies"`
}

type slugIn struct {
	Slug string `json:"slug" jsonschema:"the worktree's slug"`
}

type lsIn struct {
	Status bool `json:"status,omitempty" jsonschema:"also give tree state and integration into the base"`
}

type namesIn struct {
	Names []string `json:"names,omitempty" jsonschema:"profiles to check (default: all)"`
}

func addWorktreeTools(s *sdk.Server, e *env) {
	addTool(s, "worktree_new", "Create a linked worktree on branch wt/SLUG and run its trusted setup hooks (refused, exit 5, while they are untrusted).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in worktreeNewIn) (*Result[*worktree.Meta], error) {
			m, err := e.app.NewWorktree(ctx, app.NewWorktreeOptions{Slug: in.Slug, Base: in.Base, NoSetup: in.NoSetup, By: "mcp"})
			if err != nil {
				return nil, err
			}
			return &Result[*worktree.Meta]{Command: "worktree new", Doc: m,
				Summary: fmt.Sprintf("created worktree %s at %s (branch %s from %s %.12s)", m.Slug, m.Path, m.Branch, m.Base, m.BaseCommit)}, nil
		})
	addTool(s, "worktree_ls", "List agentproto worktrees (with status: tree state and integration).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in lsIn) (*Result[[]worktree.Listed], error) {
			rows, err := e.app.Worktrees(ctx, in.Status)
			if err != nil {
				return nil, err
			}
			return &Result[[]worktree.Listed]{Command: "worktree ls", Doc: rows, Summary: fmt.Sprintf("%d worktrees", len(rows))}, nil
		})
	addTool(s, "worktree_changes", "List every path changed in a worktree relative to its base: committed, staged, unstaged, untracked.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in slugIn) (*Result[[]worktree.Change], error) {
			return e.changes(ctx, in.Slug)
		})
}

type rmIn struct {
	Slug             string `json:"slug" jsonschema:"the worktree's slug"`
	DiscardModified  bool   `json:"discard_modified,omitempty" jsonschema:"accept losing modified tracked files (else a dirty tree is refused)"`
	DiscardUntracked bool   `json:"discard_untracked,omitempty" jsonschema:"accept losing untracked files (else they are refused)"`
}

type gcIn struct {
	Apply bool `json:"apply,omitempty" jsonschema:"do it; without apply nothing changes and the answer says what would be done"`
}

// addCleanupTools are the ways a supervisor tidies up after a run, with
// the CLI's safety: a dirty worktree is refused unless its loss is named,
// gc archives what it cannot remove cleanly, and both are dry runs until
// apply.
func addCleanupTools(s *sdk.Server, e *env) {
	addTool(s, "worktree_rm", "Remove a worktree after its teardown hooks; its branch (and every commit) is kept. A tree with modified or untracked files is refused unless discard_modified / discard_untracked accept that loss; worktree_gc archives instead.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in rmIn) (*Result[worktree.Removal], error) {
			r, err := e.app.RemoveWorktree(ctx, in.Slug, worktree.RemoveOptions{DiscardModified: in.DiscardModified, DiscardUntracked: in.DiscardUntracked})
			if err != nil {
				return nil, err
			}
			sum := "removed the half-made worktree " + in.Slug
			if r.Meta != nil {
				sum = fmt.Sprintf("removed worktree %s (branch %s kept)", r.Meta.Slug, r.Meta.Branch)
			}
			return &Result[worktree.Removal]{Command: "worktree rm", Doc: r, Summary: sum}, nil
		})
	addTool(s, "worktree_gc", "Sort the worktrees into reclaim (merged or empty), salvage (work not merged: archived on a ref, restorable) and hold (a live session runs there); with apply, remove and archive them. Nothing is lost.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in gcIn) (*Result[[]worktree.Collected], error) {
			rows, err := e.app.CollectWorktrees(ctx, in.Apply)
			if err != nil {
				return nil, err
			}
			return &Result[[]worktree.Collected]{Command: "worktree gc", Doc: rows, Summary: gcSummary(len(rows), "worktrees", in.Apply)}, nil
		})
	addTool(s, "session_gc", "Clean settled and dead sessions (their records stay in the ledger, their worktrees stay); idle running ones are reported as orphans, not killed. Without apply, say what would be cleaned.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in gcIn) (*Result[[]*sessions.Record], error) {
			rows, err := e.app.CollectSessions(ctx, in.Apply)
			if err != nil {
				return nil, err
			}
			return &Result[[]*sessions.Record]{Command: "sessions gc", Doc: rows, Summary: gcSummary(len(rows), "sessions", in.Apply)}, nil
		})
}

func gcSummary(n int, what string, apply bool) string {
	if apply {
		return fmt.Sprintf("%d %s sorted and collected", n, what)
	}
	return fmt.Sprintf("%d %s sorted; dry run: nothing changed (apply to collect)", n, what)
}

func (e *env) changes(ctx context.Context, slug string) (*Result[[]worktree.Change], error) {
	changes, err := e.app.Changes(ctx, slug)
	if err != nil {
		return nil, err
	}
	return &Result[[]worktree.Change]{Command: "worktree changes", Doc: changes, Summary: fmt.Sprintf("%d changed paths in %s", len(changes), slug)}, nil
}

func addPreflightTools(s *sdk.Server, e *env) {
	addTool(s, "adapter_list", "List the adapters agentproto can find, with checksum and trust (as `plugin ls --json`).",
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*Result[[]launch.Plugin], error) {
			rows, err := e.app.Plugins(ctx)
			if err != nil {
				return nil, err
			}
			return &Result[[]launch.Plugin]{Command: "plugin ls", Doc: rows, Summary: fmt.Sprintf("%d adapters", len(rows))}, nil
		})
	addTool(s, "profile_check", "Preflight executor profiles: adapter found and pinned, auth supported, key set, model declared. A problem is a tool error carrying the rows.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in namesIn) (*Result[[]profiles.Result], error) {
			rs, err := e.app.CheckProfiles(ctx, in.Names)
			if err != nil {
				return nil, err
			}
			res := &Result[[]profiles.Result]{Command: "profile check", Doc: rs, Summary: fmt.Sprintf("%d profiles checked", len(rs))}
			for _, r := range rs {
				if !r.OK {
					res.Fail = fmt.Errorf("profile %s has problems: %s", r.Name, strings.Join(r.Problems, "; "))
					break
				}
			}
			return res, nil
		})
}
