package worktreecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// GCOptions are the inputs of `worktree gc`.
type GCOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Apply  bool
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdGC returns `worktree gc`.
func NewCmdGC(f *cmdutil.Factory, runF func(*GCOptions) error) *cobra.Command {
	o := &GCOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "gc [--apply] [--json]",
		Short: "Sort worktrees into reclaim / salvage / hold; act only with --apply",
		Long: `reclaim: clean, idle, and merged, squash-merged or without commits, or left half
         made by an interrupted worktree new: removed.
salvage: uncommitted work and no session attached: archived, then removed.
hold:    a session attached, or commits not in the base: left alone.
Without --apply this is a dry run.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, gcRun) },
	}
	cmd.Flags().BoolVar(&o.Apply, "apply", false, "remove reclaimable worktrees and archive salvageable ones")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print as JSON")
	return cmd
}

func gcRun(o *GCOptions) error {
	rows, err := o.App.CollectWorktrees(context.Background(), o.Apply)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rows)
	}
	for _, r := range rows {
		done := ""
		if r.Done != "" {
			done = " -> " + r.Done
		}
		fmt.Fprintf(o.IO.Out, "%-8s %-20s %s%s\n", r.Action, r.Slug, r.Reason, done)
	}
	if !o.Apply && len(rows) > 0 {
		fmt.Fprintln(o.IO.Out, "(dry run: nothing changed; use --apply)")
	}
	return nil
}
