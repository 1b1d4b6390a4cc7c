package worktreecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/worktree"
)

// LsOptions are the inputs of `worktree ls`.
type LsOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Status bool
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdLs returns `worktree ls`.
func NewCmdLs(f *cmdutil.Factory, runF func(*LsOptions) error) *cobra.Command {
	o := &LsOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "ls [--status] [--json]",
		Short: "List agentproto worktrees (with --status: tree state and integration)",
		Args:  cmdutil.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, lsRun) },
	}
	cmd.Flags().BoolVar(&o.Status, "status", false, "also show tree state and integration into the base")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print as JSON")
	return cmd
}

func lsRun(o *LsOptions) error {
	rows, err := o.App.Worktrees(context.Background(), o.Status)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rows)
	}
	for _, r := range rows {
		fmt.Fprintln(o.IO.Out, lsLine(r))
	}
	return nil
}

// lsLine is one worktree for people: slug, branch, head, path, then what
// is unusual about it.
func lsLine(r worktree.Listed) string {
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
	if r.Missing {
		line += "  [missing: its directory was deleted; dispatch makes it again from " + r.Branch + ", or forget it: git agentproto worktree rm " + r.Slug + "]"
	} else if r.Live {
		line += "  [live]"
	}
	if r.Tree != nil {
		tree := "clean"
		if !r.Tree.Clean {
			tree = fmt.Sprintf("dirty (%d modified, %d untracked)", r.Tree.Modified, r.Tree.Untracked)
		}
		line += fmt.Sprintf("  %s, %s", tree, r.Integration)
	}
	return line
}
