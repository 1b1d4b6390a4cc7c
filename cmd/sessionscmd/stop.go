package sessionscmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// StopOptions are the inputs of `sessions stop`.
type StopOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Force  bool
	JSON   bool
	Export *cmdutil.Exporter
}

func newCmdStop(f *cmdutil.Factory, runF func(*StopOptions) error) *cobra.Command {
	opts := &StopOptions{IO: f.IO, App: f.App()}
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
	s, err := o.App.StopDaemon(context.Background(), o.Force)
	switch {
	case err != nil:
		return err
	case o.JSON:
		return o.Export.Write(o.IO.Out, map[string]any{"stopped": s.Stopped, "pid": s.PID, "ended": s.Ended})
	case !s.Stopped:
		fmt.Fprintln(o.IO.Out, "no sessions daemon runs; nothing to stop")
		return nil
	}
	fmt.Fprintf(o.IO.Out, "stopped the sessions daemon (pid %d); %d sessions ended\n", s.PID, len(s.Ended))
	for _, r := range s.Ended {
		printRecord(o.IO.Out, r)
	}
	return nil
}
