// Package webcmd is `git agentproto web`, the reviewer's page of a plan.
package webcmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// Options are the inputs of `web`.
type Options struct {
	IO      *cmdutil.IOStreams
	App     *app.Env
	Project string
	Addr    string
	Export  string
}

// NewCmdWeb builds the web command.
func NewCmdWeb(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "web [PROJECT] [--addr 127.0.0.1:PORT] | web PROJECT --export FILE.html",
		Short: "The reviewer's page of a plan: the evidence of every work package and what needs you first",
		Long: `Serve a read-only page of the plan on this machine: a queue of what needs a
person first, ranked by risk (evidence tampered with, failed verdicts, error
findings, escalated reactions, questions waiting, untested changes, shared-file
wiring, outside changes), each with the command that acts on it; then each
work package's perimeter, sessions and turns, diff, verify verdict with the
gate's log, the agent's report, review findings and accepted outside changes;
consolidation, review, e2e, the pull request and its checks; and the timeline
of waves, turns, faults and fallbacks. All of it is read from the ledger (and
the git objects its events name) and follows it live.

The page listens on loopback only and answers only requests that carry the
random token in the URL printed, with our own host and origin; it runs until
Ctrl-C. Without PROJECT it shows the one plan the ledger holds a freeze of.

--export writes the same page as one self-contained file (no script, no
fetch of anything) to attach or send, and exits.`,
		Args: cmdutil.MaxArgs(1, "at most one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Project = args[0]
			}
			opts.App = f.App()
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:0", "loopback address to serve on (port 0: a free one)")
	cmd.Flags().StringVar(&opts.Export, "export", "", "write the page to `FILE` as one static file and exit")
	return cmd
}

func run(o *Options) error {
	if o.Export != "" {
		x, err := o.App.ExportWeb(context.Background(), o.Project, o.Export)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.IO.Out, "wrote %s: plan %s, %d events, %d items need you\n", x.File, x.Project, x.Events, x.Queue)
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return o.App.ServeWeb(ctx, app.WebOptions{Project: o.Project, Addr: o.Addr, Ready: func(project, url string) {
		fmt.Fprintf(o.IO.Out, "plan %s: %s\n", project, url)
		fmt.Fprintln(o.IO.ErrOut, "serving on loopback until Ctrl-C; the token in the URL is the only key")
	}})
}
