package sessionscmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/sessions"
)

// StopOptions are the inputs of `sessions stop`.
type StopOptions struct {
	IO       *cmdutil.IOStreams
	Sessions func() (*sessions.Client, error)

	Force  bool
	JSON   bool
	Export *cmdutil.Exporter
}

// stopWait bounds the wait for the daemon to end its sessions and exit.
const stopWait = time.Minute

func newCmdStop(f *cmdutil.Factory, runF func(*StopOptions) error) *cobra.Command {
	opts := &StopOptions{IO: f.IO, Sessions: f.Sessions}
	cmd := &cobra.Command{
		Use:   "stop [--force] [--json]",
		Short: "Stop this repository's sessions daemon, ending the sessions it still holds",
		Long: `Stop the sessions daemon now rather than after [sessions] idle_exit. The
sessions still alive (settled ones waiting for a prompt) are ended and their
session_cleaned events say why; worktrees and the ledger are untouched. While
a turn is in progress it refuses (exit 5) and names the sessions at work;
--force ends them too. With no daemon running it does nothing. The next
command that needs the daemon starts it again.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(opts, runF, stopRun) },
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "stop it though sessions are at work")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, `print {"stopped","pid","ended"} as JSON`)
	return cmd
}

func stopRun(o *StopOptions) error {
	c, err := o.Sessions()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopWait)
	defer cancel()
	running, err := c.Probe(ctx)
	if err != nil {
		return err
	}
	if !running {
		if o.JSON {
			return o.Export.Write(o.IO.Out, map[string]any{"stopped": false, "pid": 0, "ended": []*sessions.Record{}})
		}
		fmt.Fprintln(o.IO.Out, "no sessions daemon runs; nothing to stop")
		return nil
	}
	pid, ended, err := c.Stop(ctx, o.Force)
	if err != nil {
		return err
	}
	if ended == nil {
		ended = []*sessions.Record{}
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, map[string]any{"stopped": true, "pid": pid, "ended": ended})
	}
	fmt.Fprintf(o.IO.Out, "stopped the sessions daemon (pid %d); %d sessions ended\n", pid, len(ended))
	for _, r := range ended {
		printRecord(o.IO.Out, r)
	}
	return nil
}
