// Package forkcmd is `git agentproto fork`: the fork extension canary.
package forkcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/fork"
	"github.com/agentproto/agentproto/internal/fault"
)

// NewCmdFork is the fork noun and its verbs.
func NewCmdFork(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fork <command>",
		Short: "The fork canary: lease a temporary execution branch of a peer's state to an idle peer",
		Long: `A fork runs a temporary execution branch from a peer's immutable state on
another idle, capability-matched registered peer, while the source keeps
running. Admission proves every capability or fails closed; the result is held
on its own ref until it is selected or discarded, and never merged.

Off unless this clone's operator sets the mode in local git config:
  git config --local agentproto.fork.mode dry-run   # validate and record only
  git config --local agentproto.fork.mode on        # run branches
See docs/peer-supervisor.md.`,
	}
	cmd.AddCommand(newCmdAdmit(f), newCmdLs(f), newCmdShow(f), newCmdSettle(f), newCmdCancel(f))
	return cmd
}

func newCmdAdmit(f *cmdutil.Factory) *cobra.Command {
	var r fork.Request
	var taskFile string
	var wait time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "admit BRANCH_ID --source A --authority-ref R (--task TEXT | --task-file F) [--executor B] [--capability C]... [--lease 30m] [--dry-run] [--wait 10m] [--json]",
		Short: "Admit an execution branch: prove every capability, then lease a peer and start it",
		Long: `BRANCH_ID is yours to choose: admitting it again with the same request does
nothing and succeeds; with another request it is a conflict (exit 3).

Admission snapshots the source's worktree (tracked and untracked files) as an
immutable commit on refs/agentproto/fork/branches/ID/source, checks that the
source's live session declares session_state_fork, picks an idle registered
peer (no live claim or lease) declaring session_termination and every
--capability, reserves capacity ([fork] max_branches), leases the peer by a
compare-and-swap of refs/agentproto/fork/leases/PEER, makes the worktree
fork-ID from the source state and starts the peer's adapter there. A failure
after the reservation records the branch failed and releases what it held.

--dry-run validates all of it and records it, marked dry run, and starts
nothing. --wait waits for the branch's turn to end and holds its result.`,
		Args: cmdutil.ExactArgs(1, "one execution branch id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.BranchID = args[0]
			if taskFile != "" {
				if r.Task != "" {
					return fault.Invalidf("give --task or --task-file, not both")
				}
				task, err := app.ReadForkTask(taskFile)
				if err != nil {
					return err
				}
				r.Task = task
			}
			b, already, err := f.App().AdmitFork(context.Background(), r, wait)
			if b != nil {
				if asJSON {
					cmdutil.ExportJSON(cmd, f.IO.Out, b)
				} else {
					say(f, b, already)
				}
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&r.Source, "source", "", "source_agent_id: the registered peer whose state is forked")
	fl.StringVar(&r.SourceWorktree, "source-worktree", "", "the source's worktree (default: the one it last reported)")
	fl.StringVar(&r.SourceSession, "source-session", "", "the source's session (default: its newest live one)")
	fl.StringVar(&r.ResumeRef, "resume-ref", "", "the session's resume reference (default session:ID)")
	fl.StringVar(&r.Executor, "executor", "", "executor_agent_id (default: the first idle capability-matched peer)")
	fl.StringSliceVar(&r.Capabilities, "capability", nil, "a capability the executor must declare (repeatable)")
	fl.StringVar(&r.AuthorityRef, "authority-ref", "", "opaque reference to the authority for this branch")
	fl.StringVar(&r.Task, "task", "", "what the branch is to do")
	fl.StringVar(&taskFile, "task-file", "", "read the task from a file")
	fl.DurationVar(&r.Lease, "lease", 0, "the branch lease (default 30m)")
	fl.BoolVar(&r.DryRun, "dry-run", false, "validate and record the admission, start nothing")
	fl.DurationVar(&wait, "wait", 0, "wait this long for the turn to end, then hold the result")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the branch as JSON")
	return cmd
}

func say(f *cmdutil.Factory, b *fork.Branch, already bool) {
	prefix := ""
	if already {
		prefix = "already admitted: "
	}
	if b.DryRun {
		fmt.Fprintf(f.IO.Out, "%svalid (dry run): branch %s of %s's state %.12s would run on %s; nothing started\n",
			prefix, b.BranchID, b.SourceAgent, b.SourceStateCommit, b.ExecutorAgent)
		return
	}
	fmt.Fprintf(f.IO.Out, "%sbranch %s: %s", prefix, b.BranchID, b.State)
	if b.ExecutorAgent != "" {
		fmt.Fprintf(f.IO.Out, " on %s", b.ExecutorAgent)
	}
	if b.Session != "" {
		fmt.Fprintf(f.IO.Out, " (session %s)", b.Session)
	}
	if b.Outcome != nil && b.Outcome.ResultCommit != "" {
		fmt.Fprintf(f.IO.Out, ", result held on %s (%.12s)", b.ResultRef, b.Outcome.ResultCommit)
	}
	fmt.Fprintln(f.IO.Out)
	if b.State == fork.StateSelected {
		fmt.Fprintf(f.IO.Out, "nothing was merged: verify, review and consolidate it from worktree %s (git agentproto worktree changes %s)\n", b.Worktree, b.Worktree)
	}
}

func newCmdLs(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "ls [--json]", Short: "List execution branches: id, state, source, executor, lease end", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			bs, err := f.App().ForkBranches(context.Background())
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, bs)
			}
			for _, b := range bs {
				dry := ""
				if b.DryRun {
					dry = " (dry run)"
				}
				lease := "lease until " + cmdutil.OrDash(b.LeaseEnd)
				if b.LeaseEnded {
					lease = "lease ended " + b.LeaseEnd + ": expired at the next fork command"
				}
				fmt.Fprintf(f.IO.Out, "%s  %-13s %s -> %s  %s%s\n", b.BranchID, b.State, b.SourceAgent, cmdutil.OrDash(b.ExecutorAgent), lease, dry)
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}

func newCmdShow(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "show BRANCH_ID [--json]", Short: "Show one execution branch: identities, proofs, history, outcome",
		Args: cmdutil.ExactArgs(1, "one execution branch id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := f.App().ForkBranch(context.Background(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, b)
			}
			return cmdutil.WriteJSONIndent(f.IO.Out, b)
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}

func newCmdSettle(f *cmdutil.Factory) *cobra.Command {
	var sel, discard, asJSON bool
	var reason string
	var evidence []string
	cmd := &cobra.Command{
		Use:   "settle BRANCH_ID (--select | --discard) --reason TEXT [--evidence-ref R]... [--json]",
		Short: "Settle a held result: select it for verify/review/consolidate, or discard it",
		Long: `--select marks the held result for the ordinary path (verify, review,
consolidate): nothing is merged. --discard keeps the compact evidence. Either
releases the executor peer and the capacity, and deletes nothing: the
worktree, the source and result refs and the session record stay.`,
		Args: cmdutil.ExactArgs(1, "one execution branch id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sel == discard {
				return fault.Invalidf("give exactly one of --select and --discard")
			}
			b, already, err := f.App().SettleFork(context.Background(), args[0], sel, reason, evidence)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, b)
			}
			say(f, b, already)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&sel, "select", false, "mark the result for verify, review and consolidation")
	fl.BoolVar(&discard, "discard", false, "discard the result, keeping its evidence")
	fl.StringVar(&reason, "reason", "", "why")
	fl.StringSliceVar(&evidence, "evidence-ref", nil, "a compact evidence reference (repeatable)")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the branch as JSON")
	return cmd
}

func newCmdCancel(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	var reason string
	cmd := &cobra.Command{
		Use:   "cancel BRANCH_ID [--reason TEXT] [--json]",
		Short: "Cancel a branch before it holds a result: kill its session, release its peer and capacity",
		Args:  cmdutil.ExactArgs(1, "one execution branch id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := f.App().CancelFork(context.Background(), args[0], reason)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, b)
			}
			say(f, b, false)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the branch as JSON")
	return cmd
}
