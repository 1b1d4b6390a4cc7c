package peercmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// ListOptions are the inputs of `supervisor event list`.
type ListOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Goal   string
	Agent  string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdList returns `supervisor event list`.
func NewCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	o := &ListOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "list --goal G --agent A [--json]", Short: "List proposals and their receipts", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, listRun) },
	}
	supervisorFlags(cmd, &o.Goal, &o.Agent)
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print as JSON")
	return cmd
}

func listRun(o *ListOptions) error {
	rows, err := o.App.SupervisorEvents(context.Background(), o.Goal, o.Agent)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rows)
	}
	for _, r := range rows {
		fmt.Fprintf(o.IO.Out, "%-16s %-8s %-12s executed=%v receipts=%v\n", r.DecisionID, r.Kind, r.Target, r.Executed, r.Receipts)
	}
	return nil
}
