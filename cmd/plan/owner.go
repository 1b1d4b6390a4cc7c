package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// OwnerOptions are the inputs of `plan owner`.
type OwnerOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	Paths   []string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdOwner returns `plan owner`.
func NewCmdOwner(f *cmdutil.Factory, runF func(*OwnerOptions) error) *cobra.Command {
	o := &OwnerOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "owner PROJECT PATH... [--json]",
		Short: "Say which work package owns each path (or shared, or nobody)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return fault.Invalidf("%s takes a plan name and at least one path", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project, o.Paths = args[0], args[1:]
			return cmdutil.RunOr(o, runF, ownerRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the owners as JSON")
	return cmd
}

func ownerRun(o *OwnerOptions) error {
	rows, err := o.App.PlanOwners(context.Background(), o.Project, o.Paths)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rows)
	}
	for _, r := range rows {
		fmt.Fprintf(o.IO.Out, "%s\t%s\n", r.Path, strings.Join(r.Owners, ","))
	}
	return nil
}
