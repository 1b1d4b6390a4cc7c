package sessionscmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// WaitOptions are the inputs of `sessions wait`.
type WaitOptions struct {
	IO       *cmdutil.IOStreams
	Store    func() (sessions.View, error)
	Sessions func() (*sessions.Client, error)

	IDs     []string
	Until   string
	Timeout string
	JSON    bool
	Export  *cmdutil.Exporter
}

func newCmdWait(f *cmdutil.Factory, runF func(*WaitOptions) error) *cobra.Command {
	opts := &WaitOptions{IO: f.IO, Store: storeOf(f), Sessions: f.Sessions}
	cmd := &cobra.Command{
		Use:   "wait ID... [--until turn-end|exit] [--timeout 40m] [--json]",
		Short: "Block until every named session reaches the state; exit 4 on timeout",
		Args:  cmdutil.MinArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IDs = args
			return cmdutil.RunOr(opts, runF, waitRun)
		},
	}
	cmd.Flags().StringVar(&opts.Until, "until", sessions.UntilTurnEnd, "turn-end or exit")
	cmd.Flags().StringVar(&opts.Timeout, "timeout", "40m", "how long to wait, with a unit")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the sessions and what is still pending as JSON")
	return cmd
}

func waitRun(o *WaitOptions) error {
	if err := validIDs(o.IDs); err != nil {
		return err
	}
	timeout, err := duration("timeout", o.Timeout, "40m or 90s")
	if err != nil {
		return err
	}
	c, err := o.Sessions()
	if err != nil {
		return err
	}
	pending, err := c.Wait(context.Background(), o.IDs, o.Until, timeout)
	if err != nil {
		return err
	}
	st, _ := o.Store()
	records := []*sessions.Record{}
	for _, id := range o.IDs {
		if r, err := st.Load(id); err == nil {
			records = append(records, r)
			if !o.JSON {
				printRecord(o.IO.Out, r)
			}
		}
	}
	if o.JSON {
		doc := map[string]any{"sessions": records, "pending": append([]string{}, pending...)}
		if err := o.Export.Write(o.IO.Out, doc); err != nil {
			return err
		}
	}
	if len(pending) > 0 {
		return fault.Timeoutf("timed out after %s; still running: %s", o.Timeout, strings.Join(pending, " "))
	}
	return nil
}
