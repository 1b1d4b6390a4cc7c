package worktreecmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// ChangesOptions are the inputs of `worktree changes`.
type ChangesOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Slug   string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdChanges returns `worktree changes`.
func NewCmdChanges(f *cmdutil.Factory, runF func(*ChangesOptions) error) *cobra.Command {
	o := &ChangesOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "changes SLUG [--json]",
		Short: "List every path changed relative to the base: committed, staged, unstaged, untracked",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Slug = args[0]
			return cmdutil.RunOr(o, runF, changesRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print as JSON")
	return cmd
}

func changesRun(o *ChangesOptions) error {
	changes, err := o.App.Changes(context.Background(), o.Slug)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, changes)
	}
	for _, c := range changes {
		fmt.Fprintf(o.IO.Out, "%-9s %s (%s)\n", c.Status, c.Path, strings.Join(c.Where, ", "))
	}
	return nil
}
