// Package spendcmd wires `spend show` and `spend report`: what the agents
// cost, from the ledger's usage events, and a supervisor's report of its
// own spend.
package spendcmd

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// NewCmdSpend returns the `spend` command.
func NewCmdSpend(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "spend <command>",
		Short: "What the agents cost: tokens and money per session, work package, plan and day",
		Long: `The sessions daemon records each turn's usage as its agent reports it (claude's
tokens and total_cost_usd, codex's and ACP agents' tokens priced from [prices]);
a turn whose agent reported nothing is unknown, never zero. A supervisor reports
its own spend with spend report, so that a plan's total is whole.`,
	}
	cmd.AddCommand(newCmdShow(f), newCmdReport(f, nil))
	return cmd
}

func newCmdShow(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [--json]",
		Short: "Show spend per plan (executors and supervisor), work package and day",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := f.App().Spend(context.Background())
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, r)
			}
			out := f.IO.Out
			for _, plan := range slices.Sorted(maps.Keys(r.Plans)) {
				p := r.Plan(plan)
				fmt.Fprintf(out, "plan %s: %s (executors %s, supervisor %s)\n", plan, p.Total, p.Executors, p.Supervisor)
				for _, wp := range slices.Sorted(maps.Keys(p.WPs)) {
					fmt.Fprintf(out, "  %-10s %s\n", wp, p.WPs[wp])
				}
			}
			for _, day := range slices.Sorted(maps.Keys(r.Days)) {
				fmt.Fprintf(out, "day %s: %s\n", day, r.Days[day])
			}
			fmt.Fprintf(out, "all: %s\n", r.All)
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the roll-up as JSON")
	return cmd
}

// ReportOptions are the inputs of `spend report`.
type ReportOptions struct {
	IO   *cmdutil.IOStreams
	App  *app.Env
	JSON bool
	Cost float64
	app.SupervisorSpend
}

func newCmdReport(f *cmdutil.Factory, runF func(*ReportOptions) error) *cobra.Command {
	o := &ReportOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "report PLAN --id ID (--input N --output N [--cached N] [--cache-write N] | --usd X) [--model M] [--note T] [--json]",
		Short: "Record a supervisor's own spend for a plan, so that its total is whole",
		Args:  cmdutil.ExactArgs(1, "the plan"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Plan = args[0]
			o.HasCost = cmd.Flags().Changed("usd")
			o.CostUSD = o.Cost
			if runF != nil {
				return runF(o)
			}
			return reportRun(cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.ID, "id", "", "names the report: sending it again records it once")
	fl.StringVar(&o.Model, "model", "", "the supervisor's model, to price tokens from [prices]")
	fl.Int64Var(&o.InputTokens, "input", 0, "uncached input tokens")
	fl.Int64Var(&o.CachedInputTokens, "cached", 0, "input tokens read from the provider's cache")
	fl.Int64Var(&o.CacheCreationTokens, "cache-write", 0, "input tokens written to the provider's cache")
	fl.Int64Var(&o.OutputTokens, "output", 0, "output tokens")
	fl.Float64Var(&o.Cost, "usd", 0, "the cost in US dollars, when the supervisor knows it")
	fl.StringVar(&o.Note, "note", "", "what the spend was for")
	cmdutil.AddJSONFlags(cmd, &o.JSON, `print {"written","turn"} as JSON`)
	return cmd
}

func reportRun(cmd *cobra.Command, o *ReportOptions) error {
	t, written, err := o.App.ReportSupervisorSpend(context.Background(), o.SupervisorSpend)
	switch {
	case err != nil:
		return err
	case o.JSON:
		return cmdutil.ExportJSON(cmd, o.IO.Out, map[string]any{"written": written, "turn": t})
	case written && t.CostFrom == "":
		fmt.Fprintf(o.IO.Out, "recorded the supervisor's spend for %s: %d tokens, cost unknown (no price for model %q in [prices])\n", o.Plan, t.Tokens(), t.Model)
	case written:
		fmt.Fprintf(o.IO.Out, "recorded the supervisor's spend for %s: %d tokens, $%.4f\n", o.Plan, t.Tokens(), t.CostUSD)
	default:
		fmt.Fprintf(o.IO.Out, "report %s is already recorded\n", o.ID)
	}
	return nil
}
