package sessionscmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/sessions"
)

// MonitorOptions are the inputs of `sessions monitor`.
type MonitorOptions struct {
	IO       *cmdutil.IOStreams
	Sessions func() (*sessions.Client, error)

	IDs    []string
	For    string
	JSON   bool
	Export *cmdutil.Exporter
}

func newCmdMonitor(f *cmdutil.Factory, runF func(*MonitorOptions) error) *cobra.Command {
	opts := &MonitorOptions{IO: f.IO, Sessions: f.Sessions}
	cmd := &cobra.Command{
		Use:   "monitor ID... [--for 45s] [--json]",
		Short: "Return as soon as any named session changes state (or the time passes); one line per session",
		Long: `For a supervisor with a small context: instead of polling, block until one of the
named sessions changes state or turn, or --for passes, then print one line per
session: id, state, turns, last activity, warnings count.`,
		Args: cmdutil.MinArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IDs = args
			return cmdutil.RunOr(opts, runF, monitorRun)
		},
	}
	cmd.Flags().StringVar(&opts.For, "for", "45s", "the longest to wait, with a unit")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the sessions as JSON")
	return cmd
}

func monitorRun(o *MonitorOptions) error {
	if err := validIDs(o.IDs); err != nil {
		return err
	}
	dur, err := duration("for", o.For, "45s")
	if err != nil {
		return err
	}
	c, err := o.Sessions()
	if err != nil {
		return err
	}
	recs, err := c.Monitor(context.Background(), o.IDs, dur)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, map[string]any{"sessions": append([]*sessions.Record{}, recs...)})
	}
	for _, r := range recs {
		fmt.Fprintf(o.IO.Out, "%s %s turns=%d last=%s warnings=%d\n", r.ID, r.State, r.Turns, r.LastActivity.Local().Format("15:04:05"), len(r.Warnings))
	}
	return nil
}
