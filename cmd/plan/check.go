package plan

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// CheckOptions are the inputs of `plan check`.
type CheckOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdCheck returns `plan check`.
func NewCmdCheck(f *cmdutil.Factory, runF func(*CheckOptions) error) *cobra.Command {
	o := &CheckOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "check PROJECT [--json]",
		Short: "Check a plan: perimeters, contract blocks, briefs, dependencies; exit 1 on errors",
		Long: `Report findings with stable codes; exit 1 when any is an error.
Errors: perimeter-overlap, shared-owned, path-escape, empty-perimeter,
contract-block-missing, contract-block-altered, missing-stop-if-fork,
missing-report-section, wp0-not-first, unknown-dependency, dependency-cycle,
duplicate-wp, bad-wp-id, brief-unreadable, missing-base, unknown-base,
missing-gate, gate-pipe, no-wps, spec-unreadable.
Warnings: unowned-change-target, glob-matches-nothing.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project = args[0]
			return cmdutil.RunOr(o, runF, checkRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the findings as JSON")
	return cmd
}

func checkRun(o *CheckOptions) error {
	p, rep, err := o.App.CheckPlan(context.Background(), o.Project)
	if err != nil {
		return err
	}
	if o.JSON {
		if err := o.Export.Write(o.IO.Out, rep); err != nil {
			return err
		}
	} else {
		printFindings(o.IO.Out, rep)
	}
	if !rep.OK {
		return cmdutil.Silent(fmt.Errorf("plan %s has %d errors", p.Name, rep.Errors))
	}
	return nil
}
