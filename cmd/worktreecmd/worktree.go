// Package worktreecmd wires `worktree` (new, ls, changes, rm, archive,
// restore, gc) and `trust`. Each verb has an Options struct (dependencies,
// then flag values) and a run function, in a file of its own; tests pass
// a runF to check the flags alone.
package worktreecmd

import (
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
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
	cmd.AddCommand(NewCmdNew(f, nil), NewCmdLs(f, nil), NewCmdChanges(f, nil), NewCmdRm(f, nil),
		NewCmdArchive(f, nil), NewCmdRestore(f, nil), NewCmdGC(f, nil))
	return cmd
}
