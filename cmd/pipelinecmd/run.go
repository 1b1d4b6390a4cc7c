package pipelinecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// RunOptions are the inputs of `run`.
type RunOptions struct {
	deps
	Project     string
	MaxParallel int
	OpenPR      bool
	DryRun      bool
	JSON        bool
	Export      *cmdutil.Exporter
}

// NewCmdRun returns `run`.
func NewCmdRun(f *cmdutil.Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "run PROJECT [--max-parallel N] [--pr | --dry-run]",
		Short: "The whole pipeline: dispatch, verify, checkpoint, consolidate, review, e2e, pull request",
		Long: `Run every step in order with one progress view and stop at the first red step,
saying what to do next. Every step is recorded, so running it again continues
where it stopped. The pull request is opened only with --pr; --dry-run still
runs every step (dispatching the WPs not yet verified) and prints the pull
request instead of opening it (on stdout); without either, run stops before
it. Progress goes to stderr.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Project = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.MaxParallel, "max-parallel", 0, "sessions at once")
	cmd.Flags().BoolVar(&opts.OpenPR, "pr", false, "open the pull request at the end")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "run every step, then print the pull request instead of opening it")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "progress on stderr; print the outcome and each step's result as JSON")
	return cmd
}

func runRun(o *RunOptions) error {
	// Progress goes to stderr; with --json only to a watching one, and
	// stdout gets one document: how far the run went and each step's result.
	report := newProgress(o.IO.ErrOut, o.IO.IsStderrTTY())
	if o.JSON {
		report = newProgress(o.IO.Progress(), false)
	}
	defer onInterrupt(o.deps, o.Project, "git agentproto run "+o.Project)()
	res, err := o.App.Run(context.Background(), app.RunOptions{Project: o.Project, MaxParallel: o.MaxParallel, OpenPR: o.OpenPR, DryRun: o.DryRun, Report: report})
	switch {
	case err != nil && res.Next != "":
		// The error is said here, with its one next step; not again below.
		report.line("\nstopped at %s: %s\nnext: %s\n", res.StoppedAt, res.Error, res.Next)
		if !o.JSON {
			err = cmdutil.Silent(err)
		}
	case res.Next != "":
		report.line("\nall green. next: %s\n", res.Next)
	}
	if !o.JSON && res.PRRequest != nil {
		// The preview is the run's data: on stdout, where > file keeps it.
		fmt.Fprint(o.IO.Out, res.PRRequest)
	}
	if o.JSON {
		if werr := o.Export.Write(o.IO.Out, res); err == nil {
			err = werr
		}
	}
	return err
}
