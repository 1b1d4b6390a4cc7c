package pipelinecmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// WaitingOptions are the inputs of `waiting`.
type WaitingOptions struct {
	deps
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdWaiting returns `waiting`.
func NewCmdWaiting(f *cmdutil.Factory, runF func(*WaitingOptions) error) *cobra.Command {
	opts := &WaitingOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "waiting [--json]",
		Short: "What waits for the supervisor: questions WPs stopped on, pull request items that escalated",
		Long: `List what only the supervisor can move on, across the repository's plans:
the work packages stopped on a question (answer with plan answer), and the
items of the plans' pull requests that escalated after the reactions — the
retries ran out, no single work package owns what they name, someone else
pushed to the branch — each with what was tried (answer with pr answer).
It reads the ledger and asks GitHub nothing.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return waitingRun(opts)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the list as JSON")
	return cmd
}

func waitingRun(o *WaitingOptions) error {
	w, err := o.App.Waiting(context.Background())
	switch {
	case err != nil:
		return err
	case o.JSON:
		return o.Export.Write(o.IO.Out, w)
	}
	out := o.IO.Out
	for _, p := range w.Problems {
		fmt.Fprintf(o.IO.ErrOut, "warning: %s\n", p)
	}
	for _, d := range w.Decisions {
		fmt.Fprintf(out, "%s %s stopped on a question: %s\n  answer: git agentproto plan answer %s %s --choice ...\n", d.Project, d.WP, d.Stop.Describe(), d.Project, d.WP)
	}
	for _, e := range w.Escalations {
		fmt.Fprintf(out, "%s pull request #%d %s (%s) [%s]: %s\n", e.Project, e.Number, e.Item, e.Trigger, strings.Join(e.WPs, ", "), e.Reason)
		if len(e.Tried) > 0 {
			fmt.Fprintf(out, "  tried: %s\n", strings.Join(e.Tried, "; "))
		}
		fmt.Fprintf(out, "  answer: git agentproto pr answer %s %s --choice retry|dismiss|WPn\n", e.Project, e.Item)
	}
	if len(w.Decisions)+len(w.Escalations) == 0 {
		fmt.Fprintln(out, "nothing waits for the supervisor")
	}
	return nil
}
