// Package scoutcmd is `git agentproto scout`: the read-only recon before a
// plan, and the check of its citations against the source.
package scoutcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/scout"
)

// NewCmdScout builds `scout` and `scout check`.
func NewCmdScout(f *cmdutil.Factory) *cobra.Command {
	var o app.ScoutOptions
	var question string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "scout PROJECT [--question FILE] [--profile P | --adapter A] [--base REV] [--replace] [--no-ping] [--json]",
		Short: "Run a read-only recon session whose every claim cites the source, and check each citation",
		Long: `A scout session (a cheap long-context model) reads the repository in its own
worktree, scout-PROJECT, and answers the question into RECON.md there; any
other change it makes voids the run. Each claim is a "## C1: ..." heading with
a citation: a back-quoted path:line and the quoted lines ("> ..."). The recon
is copied to .plans/PROJECT/RECON.md and every citation checked against the
base: verified (the quote is there, within 3 lines), moved (found elsewhere:
the new place is given) or unverified. A SPEC or brief that relies on a
claim says recon:C1; plan check warns when that claim is unverified.
Without --question the scout maps what a plan needs (layout, build and
tests, what a change would touch), serving the plan's SPEC.md when there is
one; without --profile or --adapter it runs [dispatch] adapter.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project, o.Question = args[0], ""
			if question != "" {
				var err error
				if o.Question, err = app.ReadScoutQuestion(question, f.IO.In); err != nil {
					return err
				}
			}
			res, err := f.App().Scout(context.Background(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, res)
			}
			fmt.Fprintf(f.IO.Out, "scout session %s wrote %s (base %.12s)\n", res.Session, res.Recon, res.BaseCommit)
			printCheck(f.IO.Out, res.Check)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&question, "question", "", "a file with the question (- reads stdin)")
	fl.StringVar(&o.Profile, "profile", "", "executor profile of the scout ([profiles.NAME])")
	fl.StringVar(&o.Adapter, "adapter", "", "adapter of the scout")
	fl.StringVar(&o.Base, "base", "", "revision to scout (default [worktree] base, origin/HEAD, HEAD)")
	fl.BoolVar(&o.Replace, "replace", false, "replace an existing RECON.md (the old one is attached to the event)")
	fl.BoolVar(&o.NoPing, "no-ping", false, "skip the liveness ping")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the run and its check as JSON")
	cmd.AddCommand(newCmdCheck(f))
	return cmd
}

func newCmdCheck(f *cmdutil.Factory) *cobra.Command {
	var base string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check PROJECT [--base REV] [--json]",
		Short: "Check every citation of the plan's RECON.md against the source again; exit 1 when one is unverified",
		Long: `Check .plans/PROJECT/RECON.md against --base, else the plan's base (plan.toml),
else the commit the last scout run read.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := f.App().ScoutCheck(context.Background(), args[0], base)
			if err != nil {
				return err
			}
			if asJSON {
				if err := cmdutil.ExportJSON(cmd, f.IO.Out, res); err != nil {
					return err
				}
			} else {
				printCheck(f.IO.Out, res)
			}
			if res.Unverified > 0 {
				return cmdutil.Silent(fmt.Errorf("%d claims are unverified", res.Unverified))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "the revision the citations are checked against")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the verdicts as JSON")
	return cmd
}

func printCheck(w io.Writer, r *scout.Result) {
	for _, c := range r.Claims {
		line := fmt.Sprintf("%-4s %-10s %s", c.ID, c.Verdict, c.Text)
		for _, ct := range c.Citations {
			switch {
			case ct.Verdict == scout.Moved:
				line += fmt.Sprintf("\n       cited %s, found at %s", ct.Citation, ct.Found)
			case ct.Verdict == scout.Unverified:
				line += fmt.Sprintf("\n       cited %s: %s", ct.Citation, ct.Reason)
			}
		}
		if len(c.Citations) == 0 {
			line += "\n       " + c.Reason
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%d verified, %d moved, %d unverified\n", r.Verified, r.Moved, r.Unverified)
}
