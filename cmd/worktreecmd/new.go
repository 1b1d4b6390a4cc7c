package worktreecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/worktree"
)

// NewOptions are the inputs of `worktree new`.
type NewOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Slug    string
	Base    string
	Branch  string
	NoSetup bool
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdNew returns `worktree new`.
func NewCmdNew(f *cmdutil.Factory, runF func(*NewOptions) error) *cobra.Command {
	o := &NewOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "new SLUG [--base REV] [--branch NAME] [--no-setup] [--json]",
		Short: "Create a linked worktree on branch wt/SLUG and run its trusted setup hooks",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Slug = args[0]
			return cmdutil.RunOr(o, runF, newRun)
		},
	}
	cmd.Flags().StringVar(&o.Base, "base", "", "base revision (default: [worktree] base, origin/HEAD, HEAD)")
	cmd.Flags().StringVar(&o.Branch, "branch", "", "branch name (default wt/SLUG)")
	cmd.Flags().BoolVar(&o.NoSetup, "no-setup", false, "skip the setup hooks and copies")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the worktree as JSON")
	return cmd
}

func newRun(o *NewOptions) error {
	m, err := o.App.NewWorktree(context.Background(), app.NewWorktreeOptions{Slug: o.Slug, Base: o.Base, Branch: o.Branch, NoSetup: o.NoSetup})
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, m)
	}
	fmt.Fprintf(o.IO.Out, "created worktree %s at %s (branch %s from %s %.12s)\n", m.Slug, m.Path, m.Branch, m.Base, m.BaseCommit)
	if m.Checkout == worktree.CheckoutGit {
		fmt.Fprintf(o.IO.Out, "checked out by git: %s\n", m.CheckoutReason)
	}
	return nil
}
