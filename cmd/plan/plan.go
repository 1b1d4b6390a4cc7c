// Package plan wires the `plan` verbs: init, new-wp, check, freeze, status,
// amend, answer, render, show, owner. Each verb has an Options struct
// (dependencies, then flag values) and a run function, in a file of its
// own; tests pass a runF to check the flags alone.
package plan

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/plans"
)

// NewCmdPlan returns the `plan` command.
func NewCmdPlan(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan <command>",
		Short: "Write, check and freeze plans: SPEC, contract, work-package briefs",
		Long: `A plan lives in .plans/PROJECT/ (kept out of commits): plan.toml, SPEC.md,
CONTRACT.md and one brief per work package (WP). Perimeters (owns globs) of
different WPs never overlap; shared files belong to nobody. WP0 freezes the
contract and runs first. Once checked, the plan is frozen into the ledger.`,
	}
	cmd.AddCommand(NewCmdInit(f, nil), NewCmdNewWP(f, nil), NewCmdCheck(f, nil), NewCmdFreeze(f, nil),
		NewCmdStatus(f, nil), NewCmdAmend(f, nil), NewCmdAnswer(f, nil), NewCmdRender(f, nil),
		NewCmdShow(f, nil), NewCmdOwner(f, nil))
	return cmd
}

// printFindings prints a check's findings, then its count; check and a
// refused freeze both print them.
func printFindings(w io.Writer, rep *plans.Report) {
	for _, fd := range rep.Findings {
		where := fd.File
		if fd.WP != "" {
			where = fd.WP + " " + where
		}
		fmt.Fprintf(w, "%s: %s (%s): %s\n", fd.Severity, fd.Code, where, fd.Message)
	}
	fmt.Fprintf(w, "plan %s: %d errors, %d warnings\n", rep.Project, rep.Errors, rep.Warnings)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
