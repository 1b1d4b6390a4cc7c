package peercmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// ObserveOptions are the inputs of `supervisor observe`.
type ObserveOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Goal   string
	Agent  string
	Export *cmdutil.Exporter
}

// NewCmdObserve returns `supervisor observe`.
func NewCmdObserve(f *cmdutil.Factory, runF func(*ObserveOptions) error) *cobra.Command {
	o := &ObserveOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "observe --goal G --agent A", Short: "Print the read-only supervisor_observation_v0 packet", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, observeRun) },
	}
	supervisorFlags(cmd, &o.Goal, &o.Agent)
	o.Export = cmdutil.AddJQFlag(cmd)
	return cmd
}

func observeRun(o *ObserveOptions) error {
	obs, err := o.App.ObserveGoal(context.Background(), o.Goal, o.Agent)
	if err != nil {
		return err
	}
	return o.Export.Document(o.IO.Out, obs)
}
