package worktreecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// RestoreOptions are the inputs of `worktree restore`.
type RestoreOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Slug   string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdRestore returns `worktree restore`.
func NewCmdRestore(f *cmdutil.Factory, runF func(*RestoreOptions) error) *cobra.Command {
	o := &RestoreOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "restore SLUG [--json]",
		Short: "Bring back the latest archived state of a worktree",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Slug = args[0]
			return cmdutil.RunOr(o, runF, restoreRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, `print the restored worktree and the salvage it came from as JSON: {"meta","salvage"}`)
	return cmd
}

func restoreRun(o *RestoreOptions) error {
	m, s, err := o.App.RestoreWorktree(context.Background(), o.Slug)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, map[string]any{"meta": m, "salvage": s})
	}
	fmt.Fprintf(o.IO.Out, "restored worktree %s at %s from %s\n", m.Slug, m.Path, s.Ref)
	return nil
}
