package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/worktree"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
