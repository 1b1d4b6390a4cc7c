package pipelinecmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// PRWatchOptions are the inputs of `pr watch`.
type PRWatchOptions struct {
	deps
	Project  string
	Once     bool
	Interval time.Duration
	Polls    int
	Daemon   bool
	JSON     bool
	Export   *cmdutil.Exporter
}

// NewCmdPRWatch returns `pr watch`.
func NewCmdPRWatch(f *cmdutil.Factory, runF func(*PRWatchOptions) error) *cobra.Command {
	opts := &PRWatchOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "watch PROJECT [--once | --daemon] [--interval D] [--json]",
		Short: "Watch the plan's pull request and send failures and review comments back to the owning work package",
		Long: `Poll the pull request pr open opened — its head's check runs (with their
annotations) and commit statuses, its reviews and review comments — with
conditional requests, so a poll that finds nothing new costs no rate limit.
Each observation is a ledger event. [reactions] in agentproto.toml says what
follows: a failed check goes to the work package owning the files its
annotations or log name, a review comment to the owner of its file; the
agent's turn is verified, checkpointed, consolidated and reviewed, then
pushed to the same branch as a new commit (never forced) and the review
thread gets a reply naming the commit. What no single work package owns,
and what the retries did not fix, waits for the supervisor. Approved and
green notifies. agentproto never merges. Runs until the pull request is
closed or merged, or Ctrl-C; --once polls one time (for cron or CI), and
before the pull request is opened says so and exits 0. --daemon hands the
loop to the sessions daemon and returns: it polls the same way, with no
terminal open, until the pull request is closed or merged (policy ls shows
it, policy cancel stops it); escalations then reach you through plan
status, watch, supervisor observe and [policies] notify.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Project = args[0]
			if opts.Daemon && (opts.Once || opts.Polls > 0) {
				return fault.Invalidf("--daemon polls until the pull request is closed or merged; --once and --polls cannot be used with it")
			}
			if runF != nil {
				return runF(opts)
			}
			return prWatchRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Once, "once", false, "poll one time and return")
	fl.BoolVar(&opts.Daemon, "daemon", false, "let the sessions daemon watch, and return")
	fl.DurationVar(&opts.Interval, "interval", 0, "time between polls (default [reactions] interval)")
	fl.IntVar(&opts.Polls, "polls", 0, "stop after this many polls (0: until closed or merged)")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print each poll's report as one line of JSON")
	return cmd
}

func prWatchRun(o *PRWatchOptions) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if o.Daemon {
		w, err := o.App.WatchPRInDaemon(ctx, o.Project, o.Interval)
		switch {
		case err != nil:
			return err
		case o.JSON:
			return o.Export.Write(o.IO.Out, w)
		}
		fmt.Fprintf(o.IO.Out, "the sessions daemon watches pull request #%d of %s every %s (policy %s; policy cancel %s stops it)\n",
			w.Number, w.Project, w.Every, w.Policy.ID, w.Policy.ID)
		return nil
	}
	report := func(r *app.PRReport) {
		if o.JSON {
			o.Export.Write(o.IO.Out, r)
			return
		}
		printPRReport(o.IO.Out, r)
	}
	_, cost, err := o.App.WatchPR(ctx, app.WatchPROptions{Project: o.Project, Once: o.Once, Interval: o.Interval, Polls: o.Polls, Report: report})
	if cost != nil {
		fmt.Fprintf(o.IO.ErrOut, "GitHub requests: %d counted against the rate limit, %d not modified (free)\n", cost.Counted, cost.NotModified)
	}
	return err
}

func printPRReport(w io.Writer, r *app.PRReport) {
	if r.PR == nil {
		fmt.Fprintln(w, r.Note)
		return
	}
	fmt.Fprintf(w, "pull request #%d %s at %.12s\n", r.PR.Number, r.PR.State, r.PR.Head)
	if r.Note != "" {
		fmt.Fprintf(w, "  %s\n", r.Note)
	}
	for _, s := range r.Observed {
		fmt.Fprintf(w, "  seen: %s\n", s)
	}
	for _, x := range r.Reactions {
		line := fmt.Sprintf("  %s %s: %s", x.Trigger, x.Item, x.Outcome)
		if len(x.WPs) > 0 {
			line += " (" + strings.Join(x.WPs, ", ") + ")"
		}
		if x.Commit != "" {
			line += " " + x.Commit
		}
		if x.Reason != "" {
			line += ": " + x.Reason
		}
		fmt.Fprintln(w, line)
	}
	for _, p := range r.Pending {
		state := p.Describe(r.Project)
		fmt.Fprintf(w, "  pending %s %s [%s]: %s\n", p.Trigger, p.Item, strings.Join(p.WPs, ", "), state)
	}
}
