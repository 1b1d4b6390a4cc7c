package sessionscmd

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/sessions"
)

// LsOptions are the inputs of `sessions ls`.
type LsOptions struct {
	IO       *cmdutil.IOStreams
	Store    func() (sessions.View, error)
	Sessions func() (*sessions.Client, error)

	All    bool
	JSON   bool
	Export *cmdutil.Exporter
}

func newCmdLs(f *cmdutil.Factory, runF func(*LsOptions) error) *cobra.Command {
	opts := &LsOptions{IO: f.IO, Store: storeOf(f), Sessions: f.Sessions}
	cmd := &cobra.Command{
		Use:   "ls [--all] [--json]",
		Short: "List sessions: id, label, adapter, model, dir, state, turns, last activity, pid",
		Args:  cmdutil.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return runOr(opts, runF, lsRun) },
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print as JSON")
	cmd.Flags().BoolVar(&opts.All, "all", false, "include cleaned sessions")
	return cmd
}

func lsRun(o *LsOptions) error {
	rows, err := o.rows()
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rows)
	}
	for _, r := range rows {
		label := r.Label
		if label == "" {
			label = "-"
		}
		fmt.Fprintf(o.IO.Out, "%s  %-12s %-9s %-10s %-12s turns=%-3d %s  pid=%d  %s\n", r.ID, label, r.State, r.Adapter,
			orDash(r.Model), r.Turns, r.LastActivity.Local().Format("15:04:05"), r.Pid, r.Dir)
		for _, w := range r.Warnings {
			fmt.Fprintf(o.IO.Out, "    warning: %s\n", w)
		}
		if r.Sandbox == "none" && !slices.Contains(r.Warnings, sessions.SandboxWarning(r.SandboxNote)) {
			fmt.Fprintf(o.IO.Out, "    sandbox: none (%s)\n", r.SandboxNote)
		}
		if r.Failure != "" {
			fmt.Fprintf(o.IO.Out, "    %s\n", r.Failure)
		}
	}
	return nil
}

// rows are the records to list. Without a daemon nothing is live: a record
// it left running or settled is an orphan until the next daemon recovers it.
func (o *LsOptions) rows() ([]*sessions.Record, error) {
	st, err := o.Store()
	if err != nil {
		return nil, err
	}
	recs, err := st.All()
	if err != nil {
		return nil, err
	}
	c, err := o.Sessions()
	if err != nil {
		return nil, err
	}
	daemon, err := c.Probe(context.Background())
	if err != nil {
		// The records are on disk and can be listed; whether they are live
		// cannot be asked.
		fmt.Fprintln(o.IO.ErrOut, "warning:", err)
	}
	rows := []*sessions.Record{}
	for _, r := range recs {
		if !daemon && err == nil && !sessions.Terminal(r.State) {
			r.Failure = "the sessions daemon is not running (it was " + r.State + "); the next sessions command recovers it"
			r.State = "orphaned"
		}
		if o.All || r.State != sessions.StateCleaned {
			rows = append(rows, r)
		}
	}
	return rows, nil
}
