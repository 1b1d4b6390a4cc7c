package pipelinecmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/pipeline"
)

// ReviewOptions are the inputs of `review`.
type ReviewOptions struct {
	deps

	Project string
	// Adapter or Profile also runs a reviewer session.
	Adapter, Profile string
	// Base, Head, Gate and Own review one change with no plan.
	Base, Head, Gate string
	// Branch reviews a pull request's branch where the worktrees are not.
	Branch         string
	Own            []string
	MutationBudget time.Duration
	JSON           bool
	Export         *cmdutil.Exporter
}

func newCmdReview(f *cmdutil.Factory) *cobra.Command { return NewCmdReview(f, nil) }

// NewCmdReview returns `review`.
func NewCmdReview(f *cmdutil.Factory, runF func(*ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "review PROJECT [--json] [--adapter NAME] | review --base REV [--head REV] [--gate CMD] [--own GLOB]... [--json] | review --branch wt/... [--head REV] [--base REV] [--json]",
		Short: "Adversarial review: re-run every gate, check commits against perimeters, scan for fake work",
		Long: `Review reports and never fixes. It re-runs every gate, diffs each WP's commits
against its brief's perimeter, and scans the added code for the classic
fake-work patterns: tests with no assertion, skipped or deleted tests,
swallowed errors and recovered panics, not-implemented stubs and TODO
placeholders, mocks standing in for the unit under test, production code
returning the value a test expects, gate scripts that pipe away exit codes.
With --adapter, a reviewer session also reads the review brief and its
report is attached. Exit 1 when there are findings.

With --base (and --head, default HEAD) instead of a plan, review judges one
change the same way; --gate is the command that must pass on it. Nothing
is recorded.

With --branch (a pull request's wt/* branch, at --head, default the
branch), review runs where the worktrees are not, as a CI job does: when
the ledger (refs/agentproto/*) holds the branch's plan, the review is
review PROJECT's on the commits (the integration branch: the whole plan;
a work package's branch: that WP), so one commit gets one verdict;
otherwise it judges --base..--head alone and says what that cannot see.
Nothing is recorded.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			change := opts.Base != "" || opts.Head != "" || opts.Gate != "" || len(opts.Own) > 0 || opts.Branch != ""
			switch {
			case opts.Branch != "" && (len(args) != 0 || opts.Adapter != "" || opts.Profile != ""):
				return fmt.Errorf("review --branch takes no plan name and no reviewer: the branch names its plan")
			case change && (len(args) != 0 || opts.Adapter != "" || opts.Profile != ""):
				return fmt.Errorf("review takes either a plan name or --base/--head/--gate, not both")
			case change && opts.Base == "" && opts.Branch == "":
				return fmt.Errorf("--base is needed to review a change")
			case !change && len(args) != 1:
				return fmt.Errorf("review needs one plan name, or --base REV for one change")
			}
			if len(args) == 1 {
				opts.Project = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Branch != "" {
				return reviewBranchRun(opts)
			}
			if change {
				return reviewChangeRun(opts)
			}
			return reviewRun(opts)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the review as JSON")
	fl := cmd.Flags()
	fl.StringVar(&opts.Adapter, "adapter", "", "also run a reviewer session with this adapter")
	fl.StringVar(&opts.Profile, "profile", "", "also run a reviewer session with this profile ([profiles.NAME])")
	fl.StringVar(&opts.Base, "base", "", "review the change from this revision (no plan)")
	fl.StringVar(&opts.Head, "head", "", "to this revision (default HEAD)")
	fl.StringVar(&opts.Gate, "gate", "", "the command that must pass on the change")
	fl.StringVar(&opts.Branch, "branch", "", "review a pull request's wt/* branch as review PROJECT would, from the ledger (a CI job)")
	fl.DurationVar(&opts.MutationBudget, "mutation-budget", -1, "bound of the mutation smoke (default [review] mutation_budget; 0 turns it off)")
	fl.StringArrayVar(&opts.Own, "own", nil, "a glob the change may touch (repeatable; default: any path)")
	return cmd
}

func reviewRun(o *ReviewOptions) error {
	r, err := o.App.Review(context.Background(), app.ReviewOptions{Project: o.Project, Adapter: o.Adapter, Profile: o.Profile, MutationBudget: o.MutationBudget})
	if err != nil {
		return err
	}
	if o.JSON {
		o.Export.Write(o.IO.Out, r)
	} else {
		printReview(o.IO, r.Gates, r.Findings)
		fmt.Fprintf(o.IO.Out, "review of %s: %d findings%s\n", r.Project, errorCount(r.Findings), warnings(r.Findings))
		if r.Reviewer != "" {
			fmt.Fprintf(o.IO.Out, "reviewer session %s; its report is attached to the review event\n", r.Reviewer)
			printVerdicts(o.IO.Out, r)
		}
		if next, err := o.App.ReviewNext(context.Background(), o.Project, r); err == nil && next != "" {
			fmt.Fprintf(o.IO.Out, "next: %s\n", next)
		}
	}
	if !r.OK {
		return cmdutil.Silent(fmt.Errorf("review found %d problems", errorCount(r.Findings)))
	}
	return nil
}

func printReview(io *cmdutil.IOStreams, gates []judge.GateRun, fs []judge.Finding) {
	for _, g := range gates {
		fmt.Fprintf(io.Out, "gate %-12s exit %d\n", g.Where, g.Gate.ExitCode)
	}
	printFindings(io.Out, fs)
}

// reviewChangeRun reviews one change with no plan and records nothing.
func reviewChangeRun(o *ReviewOptions) error {
	r, err := o.App.ReviewChange(context.Background(), app.ChangeReviewOptions{Base: o.Base, Head: o.Head, Gate: o.Gate, Own: o.Own, MutationBudget: o.MutationBudget})
	if err != nil {
		return err
	}
	if o.JSON {
		if err := o.Export.Write(o.IO.Out, r); err != nil {
			return err
		}
	} else {
		printReview(o.IO, r.Gates, r.Findings)
		fmt.Fprintf(o.IO.Out, "review of %.12s..%.12s: %d findings%s\n", r.Base, r.Head, errorCount(r.Findings), warnings(r.Findings))
	}
	if !r.OK {
		return cmdutil.Silent(fmt.Errorf("review found %d problems", errorCount(r.Findings)))
	}
	return nil
}

// reviewBranchRun reviews a pull request's branch where the worktrees are
// not, and records nothing.
func reviewBranchRun(o *ReviewOptions) error {
	r, err := o.App.ReviewBranch(context.Background(), app.BranchReviewOptions{Branch: o.Branch, Base: o.Base, Head: o.Head, Gate: o.Gate, Own: o.Own, MutationBudget: o.MutationBudget})
	if err != nil {
		return err
	}
	if o.JSON {
		if err := o.Export.Write(o.IO.Out, r); err != nil {
			return err
		}
	} else {
		printReview(o.IO, r.Gates, r.Findings)
		judged := "the change alone"
		if r.Judged == pipeline.JudgedPlan {
			judged = "plan " + r.Project
			if r.WP != "" {
				judged += ", " + r.WP
			}
		}
		fmt.Fprintf(o.IO.Out, "review of %s at %.12s (%s): %d findings%s\n", r.Branch, r.Head, judged, errorCount(r.Findings), warnings(r.Findings))
		for _, n := range r.Notes {
			fmt.Fprintf(o.IO.Out, "note: %s\n", n)
		}
		for _, u := range r.Unseen {
			fmt.Fprintf(o.IO.Out, "not seen: %s\n", u)
		}
	}
	if !r.OK {
		return cmdutil.Silent(fmt.Errorf("review found %d problems", errorCount(r.Findings)))
	}
	return nil
}

// E2EOptions are the inputs of `e2e`.
type E2EOptions struct {
	deps
	Project string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdE2E returns `e2e`.
func NewCmdE2E(f *cmdutil.Factory, runF func(*E2EOptions) error) *cobra.Command {
	opts := &E2EOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "e2e PROJECT [--json]",
		Short: "Run the [e2e] commands against the integration worktree and record their exit codes",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Project = args[0]
			if runF != nil {
				return runF(opts)
			}
			return e2eRun(opts)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the result as JSON")
	return cmd
}

func e2eRun(o *E2EOptions) error {
	r, err := o.App.E2E(context.Background(), o.Project)
	if err != nil {
		return err
	}
	if o.JSON {
		o.Export.Write(o.IO.Out, r)
	} else {
		for _, c := range r.Commands {
			fmt.Fprintf(o.IO.Out, "%s: exit %d (%s)\n", c.Gate.Command, c.Gate.ExitCode, c.Gate.Duration)
		}
	}
	if !r.OK {
		return cmdutil.Silent(fmt.Errorf("e2e failed"))
	}
	return nil
}

// printVerdicts shows what the reviewer session said; it never changes
// the review's outcome.
func printVerdicts(w io.Writer, r *pipeline.ReviewResult) {
	v := r.ReviewerVerdicts
	if v == nil {
		return
	}
	for _, fv := range v.Verdicts {
		fmt.Fprintf(w, "reviewer: %s %s: %s\n", fv.Finding, fv.Verdict, fv.Why)
	}
	for _, fd := range v.Findings {
		fmt.Fprintf(w, "reviewer: %s %s:%d %s\n", fd.Severity, fd.File, fd.Line, fd.Message)
	}
	if v.Problem != "" {
		fmt.Fprintf(w, "reviewer: its answer is incomplete: %s\n", v.Problem)
	}
	if v.Void != "" {
		fmt.Fprintf(w, "reviewer: VOID: %s\n", v.Void)
	}
}
