package plan

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// StatusOptions are the inputs of `plan status`.
type StatusOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdStatus returns `plan status`.
func NewCmdStatus(f *cmdutil.Factory, runF func(*StatusOptions) error) *cobra.Command {
	o := &StatusOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "status PROJECT [--json]",
		Short: "Show where each work package stands and the drift of the plan's files against the frozen version",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project = args[0]
			return cmdutil.RunOr(o, runF, statusRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the status as JSON")
	return cmd
}

func statusRun(o *StatusOptions) error {
	p, st, err := o.App.PlanStatus(context.Background(), o.Project)
	switch {
	case err != nil:
		return err
	case o.JSON:
		return o.Export.Write(o.IO.Out, st)
	case !st.Frozen:
		fmt.Fprintf(o.IO.Out, "plan %s is not frozen\n", p.Name)
		return nil
	}
	fmt.Fprintf(o.IO.Out, "plan %s frozen as %s at %s; %d amendments since\n", p.Name, st.Record, st.Time, st.Amendments)
	for _, d := range st.Files {
		fmt.Fprintf(o.IO.Out, "  %-10s %s\n", d.State, d.Name)
	}
	if len(st.WPs) > 0 {
		fmt.Fprintln(o.IO.Out, "work packages:")
	}
	for _, wp := range st.WPs {
		line := fmt.Sprintf("  %-6s %-16s", wp.ID, wp.State)
		if wp.Checkpoint != "" {
			line += " " + wp.Checkpoint
		} else if wp.Session != "" {
			line += " " + wp.Session
		}
		fmt.Fprintln(o.IO.Out, strings.TrimRight(line, " "))
	}
	for _, w := range st.Waiting {
		fmt.Fprintf(o.IO.Out, "  %s %s: %s\n", w.WP, app.WaitingDecision, w.Stop.Describe())
	}
	if s := st.Spend; s != nil {
		fmt.Fprintf(o.IO.Out, "spend: %s (executors %s, supervisor %s)\n", s.Total, s.Executors, s.Supervisor)
		for _, wp := range slices.Sorted(maps.Keys(s.WPs)) {
			fmt.Fprintf(o.IO.Out, "  %-10s %s\n", wp, s.WPs[wp])
		}
	}
	printPR(o.IO.Out, st.PR)
	return nil
}
