package worktreecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// ArchiveOptions are the inputs of `worktree archive`.
type ArchiveOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Slug   string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdArchive returns `worktree archive`.
func NewCmdArchive(f *cmdutil.Factory, runF func(*ArchiveOptions) error) *cobra.Command {
	o := &ArchiveOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "archive SLUG [--json]",
		Short: "Save the worktree's whole state on refs/agentproto/salvage/SLUG/..., then remove it",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Slug = args[0]
			return cmdutil.RunOr(o, runF, archiveRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the salvage as JSON")
	return cmd
}

func archiveRun(o *ArchiveOptions) error {
	s, err := o.App.ArchiveWorktree(context.Background(), o.Slug)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, s)
	}
	fmt.Fprintf(o.IO.Out, "archived worktree %s as %s and removed it (git agentproto worktree restore %s brings it back)\n", s.Meta.Slug, s.Ref, s.Meta.Slug)
	return nil
}
