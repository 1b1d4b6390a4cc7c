package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// ShowOptions are the inputs of `plan show`.
type ShowOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdShow returns `plan show`.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	o := &ShowOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "show PROJECT [--json]",
		Short: "Show a plan's work packages, perimeters and dependencies",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project = args[0]
			return cmdutil.RunOr(o, runF, showRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the plan as JSON")
	return cmd
}

func showRun(o *ShowOptions) error {
	p, err := o.App.OpenPlan(context.Background(), o.Project)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, p.Plan)
	}
	out := o.IO.Out
	fmt.Fprintf(out, "plan %s (base %s, gate %q)\n", p.Name, p.Plan.Base, p.Plan.Gate)
	if len(p.Plan.Shared) > 0 {
		fmt.Fprintf(out, "shared: %s\n", strings.Join(p.Plan.Shared, ", "))
	}
	for _, wp := range p.Plan.WPs {
		fmt.Fprintf(out, "%s  %s\n", wp.ID, wp.Title)
		fmt.Fprintf(out, "    owns: %s\n", strings.Join(wp.Owns, ", "))
		if len(wp.Reads) > 0 {
			fmt.Fprintf(out, "    reads: %s\n", strings.Join(wp.Reads, ", "))
		}
		if len(wp.DependsOn) > 0 {
			fmt.Fprintf(out, "    depends on: %s\n", strings.Join(wp.DependsOn, ", "))
		}
	}
	return nil
}
