package worktreecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/worktree"
)

// RmOptions are the inputs of `worktree rm`.
type RmOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Slug string
	// Discard says which losses of a dirty tree are accepted.
	Discard worktree.RemoveOptions
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdRm returns `worktree rm`.
func NewCmdRm(f *cmdutil.Factory, runF func(*RmOptions) error) *cobra.Command {
	o := &RmOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "rm SLUG [--discard-modified] [--discard-untracked] [--json]",
		Short: "Remove a worktree; refuses a dirty tree unless told which losses are accepted",
		Long: `Remove the worktree and its admin dir after its teardown hooks. The branch is
kept. A tree with modified or untracked files is refused (exit 5) unless
--discard-modified / --discard-untracked accept that exact loss; to keep
everything instead, use worktree archive.`,
		Args: cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Slug = args[0]
			return cmdutil.RunOr(o, runF, rmRun)
		},
	}
	cmd.Flags().BoolVar(&o.Discard.DiscardModified, "discard-modified", false, "accept losing modified tracked files")
	cmd.Flags().BoolVar(&o.Discard.DiscardUntracked, "discard-untracked", false, "accept losing untracked files")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, `print what was removed as JSON: {"meta"} or, for a half-made worktree, {"abandoned"}`)
	return cmd
}

func rmRun(o *RmOptions) error {
	r, err := o.App.RemoveWorktree(context.Background(), o.Slug, o.Discard)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, r)
	}
	if a := r.Abandoned; a != nil {
		fmt.Fprintf(o.IO.Out, "removed the half-made worktree %s (left by an interrupted worktree new, pid %d)\n", a.Slug, a.Pid)
		return nil
	}
	fmt.Fprintf(o.IO.Out, "removed worktree %s (branch %s kept)\n", r.Meta.Slug, r.Meta.Branch)
	return nil
}
