// Package worktreecmd wires `worktree` (new, ls, changes, rm, archive,
// restore, gc) and `trust`.
package worktreecmd

import (
	"github.com/agentproto/agentproto/gitstore"
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// NewCmdWorktree returns the `worktree` command.
func NewCmdWorktree(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worktree <command>",
		Short: "Provision, inspect and tear down the linked worktrees executors work in",
		Long: `Each executor works in its own linked worktree on branch wt/SLUG, outside the
repository (default ~/.agentproto/worktrees/<repo>/<slug>). Setup hooks come from
agentproto.toml as committed at the base revision and run only once trusted
(git agentproto trust). Teardown never loses work: rm refuses dirty trees,
archive snapshots everything to refs/agentproto/salvage/ first.`,
	}
	cmd.AddCommand(newCmdNew(f), newCmdLs(f), newCmdChanges(f), newCmdRm(f),
		newCmdArchive(f), newCmdRestore(f), newCmdGC(f))
	return cmd
}

// manager returns the worktree lifecycle of this repository; the config
// is read only by the verbs that need it (withConfig), so a broken
// agentproto.toml does not stop rm or restore before they start.
func manager(f *cmdutil.Factory, withConfig bool) (*worktree.Manager, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, err
	}
	mg := &worktree.Manager{Repo: repo, Ledger: func() (gitstore.Store, error) { return f.Ledger() }, Out: f.IO.ErrOut}
	if withConfig {
		cfg, _, err := f.Config()
		if err != nil {
			return nil, err
		}
		mg.Config = cfg.Worktree
	}
	return mg, nil
}

func load(f *cmdutil.Factory, slug string) (*gitrepo.Repo, *worktree.Meta, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, nil, err
	}
	m, err := worktree.Load(repo, slug)
	return repo, m, err
}

// liveWorktrees returns the worktrees a running session is attached to, by
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
