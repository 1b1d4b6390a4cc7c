package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/plugins/host"
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

// lsRow is one worktree as `worktree ls --json` prints it.
type lsRow struct {
	*worktree.Meta
	Head        string              `json:"head"`
	Tree        *worktree.TreeState `json:"tree,omitempty"`
	Integration string              `json:"integration,omitempty"`
	Live        bool                `json:"live"`
}

func addWorktreeTools(s *sdk.Server, e *env) {
	addTool(s, "worktree_new", "Create a linked worktree on branch wt/SLUG and run its trusted setup hooks (refused, exit 5, while they are untrusted).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in worktreeNewIn) (*Result, error) {
			m, err := e.provision(in.Slug, in.Base, in.NoSetup)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "worktree new", Doc: m,
				Summary: fmt.Sprintf("created worktree %s at %s (branch %s from %s %.12s)", m.Slug, m.Path, m.Branch, m.Base, m.BaseCommit)}, nil
		})
	addTool(s, "worktree_ls", "List agentproto worktrees (with status: tree state and integration).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in lsIn) (*Result, error) {
			rows, err := e.worktreeRows(in.Status)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "worktree ls", Doc: rows, Summary: fmt.Sprintf("%d worktrees", len(rows))}, nil
		})
	addTool(s, "worktree_changes", "List every path changed in a worktree relative to its base: committed, staged, unstaged, untracked.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in slugIn) (*Result, error) {
			return e.changes(in.Slug)
		})
}

func (e *env) changes(slug string) (*Result, error) {
	if err := worktree.ValidateSlug(slug); err != nil {
		return nil, err
	}
	m, err := worktree.Load(e.repo, slug)
	if err != nil {
		return nil, err
	}
	changes, err := worktree.Changes(e.repo, m)
	if err != nil {
		return nil, err
	}
	return &Result{Command: "worktree changes", Doc: changes, Summary: fmt.Sprintf("%d changed paths in %s", len(changes), slug)}, nil
}

func (e *env) worktreeRows(status bool) ([]lsRow, error) {
	all, err := worktree.All(e.repo)
	if err != nil {
		return nil, err
	}
	live := e.liveWorktrees()
	var statuses []worktree.Status
	if status {
		statuses = worktree.Statuses(e.repo, all)
	}
	rows := []lsRow{}
	for i, m := range all {
		r := lsRow{Meta: m, Live: live[m.Slug] || live[m.Path], Head: worktree.BranchHead(e.repo, m)}
		if status {
			st := statuses[i]
			if st.TreeErr != nil {
				return nil, fmt.Errorf("worktree %s: %w", m.Slug, st.TreeErr)
			}
			r.Tree, r.Integration = &st.Tree, st.Integration
			if st.IntegrationErr != nil {
				r.Integration = st.IntegrationErr.Error()
			}
		}
		rows = append(rows, r)
	}
	for _, a := range worktree.AllAbandoned(e.repo) {
		rows = append(rows, lsRow{Meta: &worktree.Meta{Slug: a.Slug, Path: a.Path, Branch: a.Branch,
			BaseCommit: a.Base, State: worktree.StateAbandoned}, Head: a.Base})
	}
	return rows, nil
}

// liveWorktrees are the worktrees a running session is attached to, by
// slug and by path.
func (e *env) liveWorktrees() map[string]bool {
	live := map[string]bool{}
	recs, _ := e.store().All()
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

// provision creates a worktree through the worktree Manager, the sequence
// `worktree new` runs: base resolved, setup hooks read from the base
// commit and run only once trusted, the provisioning recorded. Hook output
// goes to the recorded log only: this process's stdout is the protocol.
func (e *env) provision(slug, base string, noSetup bool) (*worktree.Meta, error) {
	cfg, err := e.config()
	if err != nil {
		return nil, err
	}
	mg := &worktree.Manager{Repo: e.repo, Config: cfg.Worktree, Out: io.Discard, By: "mcp",
		Ledger: func() (gitstore.Store, error) { return e.ledger() }}
	return mg.New(worktree.CreateOptions{Slug: slug, Base: base, NoSetup: noSetup})
}

type adapterRow struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Source   string `json:"source"`
	Pinned   bool   `json:"pinned"`
	Checksum string `json:"checksum"` // ok, mismatch, unpinned
	Trusted  bool   `json:"trusted"`
}

func addPreflightTools(s *sdk.Server, e *env) {
	addTool(s, "adapter_list", "List the adapters agentproto can find, with checksum and trust (as `plugin ls --json`).",
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*Result, error) {
			cfg, err := e.config()
			if err != nil {
				return nil, err
			}
			rows := []adapterRow{}
			for _, fd := range host.List(cfg.Plugins, e.repo.WorkTree) {
				r := adapterRow{Name: fd.Name, Path: fd.Path, Source: fd.Source, Pinned: fd.SHA256 != "", Checksum: "unpinned", Trusted: fd.Trusted}
				if r.Pinned {
					sum, err := host.FileSHA256(fd.Path)
					r.Checksum = "ok"
					if err != nil || !strings.EqualFold(sum, fd.SHA256) {
						r.Checksum = "mismatch"
					}
				}
				rows = append(rows, r)
			}
			return &Result{Command: "plugin ls", Doc: rows, Summary: fmt.Sprintf("%d adapters", len(rows))}, nil
		})
	addTool(s, "profile_check", "Preflight executor profiles: adapter found and pinned, auth supported, key set, model declared. A problem is a tool error carrying the rows.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in namesIn) (*Result, error) {
			cfg, err := e.config()
			if err != nil {
				return nil, err
			}
			rs := []profiles.Result{}
			if len(cfg.Profiles) > 0 || len(in.Names) > 0 {
				rs = profiles.Check(cfg, e.repo.WorkTree, in.Names, os.Getenv)
			}
			res := &Result{Command: "profile check", Doc: rs, Summary: fmt.Sprintf("%d profiles checked", len(rs))}
			for _, r := range rs {
				if !r.OK {
					res.Fail = fmt.Errorf("profile %s has problems: %s", r.Name, strings.Join(r.Problems, "; "))
					break
				}
			}
			return res, nil
		})
}
