package pipelinecmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/pipeline"
)

// VerifyOptions are the inputs of `verify`.
type VerifyOptions struct {
	deps
	Project, WP string
	JSON        bool
	Export      *cmdutil.Exporter
	// AcceptOutside takes the changes outside the worktree since the
	// dispatch as the user's before verifying.
	AcceptOutside bool
}

// NewCmdVerify returns `verify`.
func NewCmdVerify(f *cmdutil.Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{deps: newDeps(f)}
	var branch, commit string
	cmd := &cobra.Command{
		Use:   "verify PROJECT WPn [--json] | verify --branch wt/PROJECT-wpN [--commit REV] [--json]",
		Short: "Verify a work package on disk: changed paths vs its perimeter, the gate re-run; exit 0 only on pass",
		Long: `Verify a work package in its worktree against the disk; exit 0 only on pass.

With --branch (in CI, where the worktree is not), hold --commit (default HEAD)
against the ledger's latest verification of the branch's work package, as
the pre-push check does: pass only for a state that verification saw.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if branch != "" {
				return cmdutil.NoArgs(cmd, args)
			}
			return cmdutil.ExactArgs(2, "a plan name and a work package id")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if branch != "" {
				return verifyBranch(cmd, f, branch, commit, opts.JSON)
			}
			opts.Project, opts.WP = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(opts)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the verification as JSON")
	cmd.Flags().StringVar(&branch, "branch", "", "a work package's branch whose commit to hold against the ledger (CI)")
	cmd.Flags().StringVar(&commit, "commit", "HEAD", "with --branch: the commit to check")
	cmd.Flags().BoolVar(&opts.AcceptOutside, "accept-outside", false, "first record the changes outside the worktree since the dispatch as yours (refused from inside a session)")
	return cmd
}

func verifyRun(o *VerifyOptions) error {
	vd, err := o.App.Verify(context.Background(), o.Project, o.WP, o.AcceptOutside)
	if vd != nil && o.AcceptOutside {
		for _, c := range acceptedLines(vd.Accepted) {
			fmt.Fprintf(o.IO.ErrOut, "accepted as yours: %s\n", c)
		}
	}
	if err != nil {
		return err
	}
	v := vd.Verification
	if vd.Hint != "" {
		fmt.Fprintln(o.IO.ErrOut, vd.Hint)
	}
	if o.JSON {
		o.Export.Write(o.IO.Out, v)
	} else {
		out := o.IO.Out
		fmt.Fprintf(out, "%s %s: %s\n", vd.Project, v.WP, v.Verdict)
		fmt.Fprintf(out, "  worktree %s at %.12s\n  changed: %s\n", v.Worktree, v.Head, strings.Join(v.Changed, ", "))
		for _, p := range v.OutOfScope {
			fmt.Fprintf(out, "  outside the perimeter: %s\n", p)
		}
		fmt.Fprintf(out, "  gate %q: exit %d in %s\n", v.Gate.Command, v.Gate.ExitCode, v.Gate.Duration)
		for _, fd := range v.Findings {
			fmt.Fprintf(out, "  %s\n", fd)
		}
	}
	for _, u := range v.Unattributed {
		fmt.Fprintf(o.IO.ErrOut, "warning: unattributed: %s\n", u)
	}
	if v.Verdict != pipeline.Pass {
		return cmdutil.Silent(fmt.Errorf("%s failed verification", v.WP))
	}
	return nil
}

// CheckpointOptions are the inputs of `checkpoint`.
type CheckpointOptions struct {
	deps
	Project, WP string
	Message     string
	JSON        bool
	Export      *cmdutil.Exporter
}

// NewCmdCheckpoint returns `checkpoint`.
func NewCmdCheckpoint(f *cmdutil.Factory, runF func(*CheckpointOptions) error) *cobra.Command {
	opts := &CheckpointOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "checkpoint PROJECT WPn [-m MSG] [--json]",
		Short: "Commit exactly the in-perimeter changed paths of a verified work package (never pushes)",
		Args:  cmdutil.ExactArgs(2, "a plan name and a work package id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Project, opts.WP = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return checkpointRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Message, "message", "m", "", "commit message (default: the WP id and title)")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the checkpoint as JSON")
	return cmd
}

func checkpointRun(o *CheckpointOptions) error {
	name, cp, err := o.App.Checkpoint(context.Background(), o.Project, o.WP, o.Message)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, cp)
	}
	fmt.Fprintf(o.IO.Out, "%s %s: %.12s (%d paths)\n", name, cp.WP, cp.Commit, len(cp.Paths))
	return nil
}

func acceptedLines(a *pipeline.OutsideAccepted) []string {
	if a == nil {
		return []string{"nothing outside the worktree changed since the dispatch"}
	}
	return a.Changed
}
