package plan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
)

func newCmdInit(f *cmdutil.Factory) *cobra.Command {
	var base, gate string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "init PROJECT [--base REV] [--gate CMD] [--json]",
		Short: "Create .plans/PROJECT with plan.toml, SPEC.md, CONTRACT.md and WP0-brief.md",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := newEnv(f)
			if err != nil {
				return err
			}
			cfg, _, err := f.Config()
			if err != nil {
				return err
			}
			if base == "" {
				base = plans.DefaultBase(e.repo)
			}
			if gate == "" {
				gate = cfg.Plans.Gate
			}
			contract, err := e.contract()
			if err != nil {
				return err
			}
			written, err := plans.Init(e.repo.WorkTree, args[0], base, gate, contract)
			out := f.IO.Out
			if asJSON {
				out = f.IO.ErrOut
			}
			for _, w := range written {
				fmt.Fprintln(out, "wrote", w)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"project": args[0], "base": base, "gate": gate, "written": written})
			}
			fmt.Fprintf(out, "next: fill them in, then git agentproto plan check %s\n", args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "base revision (default: the current branch)")
	cmd.Flags().StringVar(&gate, "gate", "", "gate command (default: [plans] gate)")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the plan made and the files written as JSON")
	return cmd
}

func newCmdNewWP(f *cmdutil.Factory) *cobra.Command {
	var title string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "new-wp PROJECT WPn [--title T] [--json]",
		Short: "Add a work package: its brief (with the contract block) and its [[wp]] entry",
		Args:  cmdutil.ExactArgs(2, "a plan name and a work package id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, p, err := openPlan(f, args[0])
			if err != nil {
				return err
			}
			contract, err := e.contract()
			if err != nil {
				return err
			}
			path, err := plans.NewWP(p, args[1], title, contract)
			if err != nil {
				return err
			}
			plan := filepath.Join(plans.Dir, p.Name, plans.PlanFile)
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"project": p.Name, "wp": args[1], "title": title, "brief": path, "plan": plan})
			}
			fmt.Fprintf(f.IO.Out, "wrote %s and added %s to %s\n", path, args[1], plan)
			return nil
		},
	}
	cmd.Flags().StringVar(&title, "title", "", "title of the work package")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the work package added as JSON")
	return cmd
}

func newCmdCheck(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
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
			p, rep, err := f.App().CheckPlan(context.Background(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				if err := cmdutil.ExportJSON(cmd, f.IO.Out, rep); err != nil {
					return err
				}
			} else {
				printFindings(f, rep)
			}
			if !rep.OK {
				return cmdutil.Silent(fmt.Errorf("plan %s has %d errors", p.Name, rep.Errors))
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the findings as JSON")
	return cmd
}

func printFindings(f *cmdutil.Factory, rep *plans.Report) {
	for _, fd := range rep.Findings {
		where := fd.File
		if fd.WP != "" {
			where = fd.WP + " " + where
		}
		fmt.Fprintf(f.IO.Out, "%s: %s (%s): %s\n", fd.Severity, fd.Code, where, fd.Message)
	}
	fmt.Fprintf(f.IO.Out, "plan %s: %d errors, %d warnings\n", rep.Project, rep.Errors, rep.Warnings)
}

func newCmdFreeze(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "freeze PROJECT [--json]",
		Short: "Record the checked plan in the ledger (plan_frozen, every file attached)",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := f.App().FreezePlan(context.Background(), args[0])
			var pe *app.PlanErrors
			if errors.As(err, &pe) {
				printFindings(f, pe.Report)
				return fault.Refusedf("%v; nothing was recorded", pe)
			}
			if res == nil {
				return err
			}
			p, fr, written := res.Project, res.Frozen, res.Written
			if fr != nil {
				cmdutil.Warn(f.IO.ErrOut, fr.Warnings)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"record": fr.RecordID, "written": written, "files": fr.Files})
			}
			if !written {
				fmt.Fprintf(f.IO.Out, "plan %s is already frozen as %s; nothing written\n", p.Name, fr.RecordID)
				return nil
			}
			fmt.Fprintf(f.IO.Out, "froze plan %s as %s (%d files, base %s)\n", p.Name, fr.RecordID, len(fr.Files), short(fr.BaseCommit))
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the result as JSON")
	return cmd
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func newCmdStatus(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status PROJECT [--json]",
		Short: "Show drift of the plan's working files against the frozen version",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, st, err := f.App().PlanStatus(context.Background(), args[0])
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				return cmdutil.ExportJSON(cmd, f.IO.Out, st)
			case !st.Frozen:
				fmt.Fprintf(f.IO.Out, "plan %s is not frozen\n", p.Name)
				return nil
			}
			fmt.Fprintf(f.IO.Out, "plan %s frozen as %s at %s; %d amendments since\n", p.Name, st.Record, st.Time, st.Amendments)
			for _, d := range st.Files {
				fmt.Fprintf(f.IO.Out, "  %-10s %s\n", d.State, d.Name)
			}
			for _, w := range st.Waiting {
				fmt.Fprintf(f.IO.Out, "  %s %s: %s\n", w.WP, pipeline.WaitingDecision, w.Stop.Describe())
			}
			if s := st.Spend; s != nil {
				fmt.Fprintf(f.IO.Out, "spend: %s (executors %s, supervisor %s)\n", s.Total, s.Executors, s.Supervisor)
				for _, wp := range slices.Sorted(maps.Keys(s.WPs)) {
					fmt.Fprintf(f.IO.Out, "  %-10s %s\n", wp, s.WPs[wp])
				}
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the drift as JSON")
	return cmd
}

func newCmdAmend(f *cmdutil.Factory) *cobra.Command {
	var correction string
	var recon, asJSON bool
	cmd := &cobra.Command{
		Use:   "amend PROJECT --correction TEXT [--recon] [--json]",
		Short: "Append a dated CORRECTION to the SPEC (or, with --recon, to RECON.md) and record it in the ledger",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := "SPEC.md"
			if recon {
				file = plans.ReconFile
			}
			p, recorded, err := f.App().AmendPlan(context.Background(), args[0], file, correction)
			switch {
			case err != nil:
				return err
			case asJSON:
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"project": p.Name, "file": file, "recorded": recorded})
			case !recorded:
				fmt.Fprintln(f.IO.Out, "this correction is already recorded; nothing written")
				return nil
			}
			fmt.Fprintf(f.IO.Out, "appended a CORRECTION to %s and recorded it\n", filepath.Join(plans.Dir, p.Name, file))
			return nil
		},
	}
	cmd.Flags().StringVar(&correction, "correction", "", "the corrected fact")
	cmd.Flags().BoolVar(&recon, "recon", false, "correct the scout's RECON.md instead of the SPEC (briefs rendered afterwards carry it)")
	cmd.MarkFlagRequired("correction")
	cmdutil.AddJSONFlags(cmd, &asJSON, `print {"project","file","recorded"} as JSON`)
	return cmd
}

func newCmdRender(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "render PROJECT WPn [--json]",
		Short: "Print the executor's session prompt: a pointer to its frozen brief and the overrides",
		Args:  cmdutil.ExactArgs(2, "a plan name and a work package id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, err := f.App().RenderPrompt(context.Background(), args[0], args[1])
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, pr)
			}
			fmt.Fprint(f.IO.Out, pr.Prompt)
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the prompt as JSON")
	return cmd
}

func newCmdShow(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show PROJECT [--json]",
		Short: "Show a plan's work packages, perimeters and dependencies",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, p, err := openPlan(f, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, p.Plan)
			}
			out := f.IO.Out
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
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the plan as JSON")
	return cmd
}

func newCmdOwner(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
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
			_, p, err := openPlan(f, args[0])
			if err != nil {
				return err
			}
			rows, err := plans.Owners(p, args[1:])
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, rows)
			}
			for _, r := range rows {
				fmt.Fprintf(f.IO.Out, "%s\t%s\n", r.Path, strings.Join(r.Owners, ","))
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the owners as JSON")
	return cmd
}

func newCmdAnswer(f *cmdutil.Factory) *cobra.Command {
	var choice string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "answer PROJECT WPn --choice TEXT [--json]",
		Short: "Answer the question a WP stopped on: record the choice in the SPEC and send it to the WP's session",
		Args:  cmdutil.ExactArgs(2, "a plan name and a WP id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, a, err := f.App().AnswerDecision(context.Background(), args[0], args[1], choice)
			if a != nil && a.OffOptions {
				fmt.Fprintf(f.IO.ErrOut, "note: %q is none of the options the session offered\n", choice)
			}
			if asJSON && a != nil {
				// Recorded but not sent is still an answer: its document, then the error.
				if werr := cmdutil.ExportJSON(cmd, f.IO.Out, a); werr != nil {
					return werr
				}
				return err
			}
			switch {
			case err != nil:
				return err
			case !a.Recorded:
				fmt.Fprintln(f.IO.Out, "this answer is already recorded; nothing written or sent")
				return nil
			}
			fmt.Fprintf(f.IO.Out, "recorded the answer for %s in %s and sent it to session %s; verify it when its turn ends (git agentproto verify %s %s)\n",
				a.WP, filepath.Join(plans.Dir, p.Name, "SPEC.md"), a.Session, p.Name, a.WP)
			return nil
		},
	}
	cmd.Flags().StringVar(&choice, "choice", "", "the supervisor's choice")
	cmd.MarkFlagRequired("choice")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the answer as JSON")
	return cmd
}
