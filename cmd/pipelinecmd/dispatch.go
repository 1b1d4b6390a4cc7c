package pipelinecmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// DispatchOptions are the inputs of `dispatch`.
type DispatchOptions struct {
	deps
	Project     string
	WPs         []string
	MaxParallel int
	NoWait      bool
	NoPing      bool
	// Timeout is the --timeout text; "" takes [dispatch] timeout.
	Timeout string
	// Text gives the --wp work packages a turn with it.
	Text   string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdDispatch returns `dispatch`.
func NewCmdDispatch(f *cmdutil.Factory, runF func(*DispatchOptions) error) *cobra.Command {
	opts := &DispatchOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "dispatch PROJECT [--wp WPn]... [--max-parallel N] [--no-wait] [--no-ping] [--timeout 40m] [--text TEXT] [--json]",
		Short: "Run work packages: WP0 first and alone, then the others in parallel, each verified on disk",
		Long: `Start one session per work package in its own worktree (wt/PROJECT-wpN, setup
hooks run), prompted with plan render. WP0 runs first and alone; once it is
verified the WPs it unblocks run in parallel (at most --max-parallel). After
each wave the sessions are waited for and verified on disk; a failed
verification stops with what to do next. Running dispatch again continues
where it stopped: worktrees, live sessions and passing verifications are
reused, not redone; a WP whose worktree was removed (worktree rm) starts
again in a new worktree and session, the branch it left kept as
wt/PROJECT-wpN-attempt-K. Refuses an unfrozen plan or one whose files drifted.
With --no-wait it launches the next wave and returns: the sessions daemon
then verifies each session at its turn's end, kills it once verified and
runs dispatch --no-wait again, so the later waves start with nobody
waiting (watch or plan status show where the run is). Such a run skips
what is verified, running or waiting for a decision, and never two of them
launch a wave of one plan at once.
Each session first answers a liveness ping ("Reply with exactly READY") and
only then gets its brief; an agent that cannot answer it (a script that
ignores its prompt) fails to start: --no-ping skips the ping.
With --text and --wp it starts no wave: each named work package gets a turn
with TEXT — its live session, else a new session in its worktree, recorded
as its newest dispatch — and is waited for and verified again. It is the way
back after review names a WP's files (verified WPs' sessions are ended);
then run the pipeline on (git agentproto run PROJECT).`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Project = args[0]
			if opts.Timeout != "" {
				if d, err := time.ParseDuration(opts.Timeout); err != nil || d <= 0 {
					return fault.Invalidf("--timeout %q needs a unit, such as 40m", opts.Timeout)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return dispatchRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.NoPing, "no-ping", false, `skip the liveness ping ("Reply with exactly READY") before the brief`)
	fl.StringArrayVar(&opts.WPs, "wp", nil, "only this work package (repeatable)")
	fl.IntVar(&opts.MaxParallel, "max-parallel", 0, "sessions at once (default [dispatch] max_parallel)")
	fl.BoolVar(&opts.NoWait, "no-wait", false, "start the next wave and return; the sessions daemon runs the later ones")
	fl.StringVar(&opts.Timeout, "timeout", "", "how long to wait for a wave (default [dispatch] timeout)")
	fl.StringVar(&opts.Text, "text", "", "give the --wp work packages a turn with this text, then verify them again")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "progress on stderr; print the verifications as JSON")
	return cmd
}

func dispatchRun(o *DispatchOptions) error {
	var timeout time.Duration // 0: [dispatch] timeout
	if o.Timeout != "" {
		timeout, _ = time.ParseDuration(o.Timeout) // checked with the flags
	}
	opt := app.DispatchOptions{Project: o.Project, WPs: o.WPs, MaxParallel: o.MaxParallel, Wait: !o.NoWait, Timeout: timeout, NoPing: o.NoPing, Text: o.Text,
		Report: newProgress(o.IO.Out, o.IO.IsStdoutTTY())}
	if o.JSON {
		// Progress to a watching stderr; stdout gets the latest verifications.
		opt.Report = newProgress(o.IO.Progress(), false)
	}
	resume := "git agentproto dispatch " + o.Project
	for _, wp := range o.WPs {
		resume += " --wp " + wp
	}
	stop := onInterrupt(o.deps, o.Project, resume)
	d, runErr := o.App.Dispatch(context.Background(), opt)
	stop()
	var pe *app.PlanErrors
	switch {
	case errors.As(runErr, &pe):
		return fmt.Errorf("%v (git agentproto plan check %s)", pe, pe.Project)
	case d == nil:
		return runErr
	case !o.JSON:
		if runErr != nil {
			return runErr
		}
		done, next, err := d.Summary()
		if err == nil {
			fmt.Fprintf(o.IO.Out, "\n%s\nnext: %s\n", done, next)
		}
		return err
	}
	st, err := d.State()
	if err != nil {
		return errors.Join(runErr, err)
	}
	doc := map[string]any{"project": d.Project(), "ok": runErr == nil, "verifications": st.Verifications}
	if runErr != nil {
		doc["error"] = runErr.Error()
	} else if _, next, err := d.Summary(); err == nil {
		doc["next"] = next
	}
	if err := o.Export.Write(o.IO.Out, doc); err != nil {
		return err
	}
	return runErr
}
