package sessionscmd

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/sessions"
)

// LsOptions are the inputs of `sessions ls`.
type LsOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	All    bool
	JSON   bool
	Export *cmdutil.Exporter
}

func newCmdLs(f *cmdutil.Factory, runF func(*LsOptions) error) *cobra.Command {
	opts := &LsOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "ls [--all] [--json]",
		Short: "List sessions: id, label, adapter, model, dir, state, turns, spend, last activity, pid",
		Args:  cmdutil.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(opts, runF, lsRun) },
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print as JSON")
	cmd.Flags().BoolVar(&opts.All, "all", false, "include cleaned sessions")
	return cmd
}

func lsRun(o *LsOptions) error {
	rows, err := o.App.ListSessions(context.Background(), o.All)
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
		pid := fmt.Sprintf("pid=%d", r.Pid)
		if r.Released {
			pid = "released" // no process until its next prompt
		}
		fmt.Fprintf(o.IO.Out, "%s  %-12s %-9s %-10s %-12s turns=%-3d %s  %s  %s\n", r.ID, label, r.State, r.Adapter,
			cmdutil.OrDash(r.Model), r.Turns, r.LastActivity.Local().Format("15:04:05"), pid, r.Dir)
		if r.Spend.Turns > 0 {
			fmt.Fprintf(o.IO.Out, "    spend: %s\n", r.Spend)
		}
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
