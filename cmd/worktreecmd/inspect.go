package worktreecmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/worktree"
)

func newCmdLs(f *cmdutil.Factory) *cobra.Command {
	var status, asJSON bool
	cmd := &cobra.Command{
		Use:   "ls [--status] [--json]",
		Short: "List agentproto worktrees (with --status: tree state and integration)",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			mg, err := manager(f, false)
			if err != nil {
				return err
			}
			live := liveWorktrees(mg.Repo)
			rows, err := mg.List(status, func(m *worktree.Meta) bool { return live[m.Slug] || live[m.Path] })
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, rows)
			}
			for _, r := range rows {
				line := fmt.Sprintf("%-20s %-24s %.12s  %s", r.Slug, r.Branch, r.Head, r.Path)
				if r.State != worktree.StateReady {
					line += "  [" + r.State + "]"
				}
				if r.State == worktree.StateAbandoned {
					line += "  left by an interrupted worktree new; remove with: git agentproto worktree rm " + r.Slug
				}
				if r.Checkout == worktree.CheckoutGit {
					line += "  [git checkout: " + r.CheckoutReason + "]"
				}
				if r.Live {
					line += "  [live]"
				}
				if r.Tree != nil {
					tree := "clean"
					if !r.Tree.Clean {
						tree = fmt.Sprintf("dirty (%d modified, %d untracked)", r.Tree.Modified, r.Tree.Untracked)
					}
					line += fmt.Sprintf("  %s, %s", tree, r.Integration)
				}
				fmt.Fprintln(f.IO.Out, line)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&status, "status", false, "also show tree state and integration into the base")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}

func newCmdChanges(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "changes SLUG [--json]",
		Short: "List every path changed relative to the base: committed, staged, unstaged, untracked",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, m, err := load(f, args[0])
			if err != nil {
				return err
			}
			changes, err := worktree.Changes(repo, m)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, changes)
			}
			for _, c := range changes {
				fmt.Fprintf(f.IO.Out, "%-9s %s (%s)\n", c.Status, c.Path, strings.Join(c.Where, ", "))
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}
