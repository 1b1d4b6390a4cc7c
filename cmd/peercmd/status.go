package peercmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// StatusOptions are the inputs of `peer status`.
type StatusOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Status peers.Status
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdStatus returns `peer status`.
func NewCmdStatus(f *cmdutil.Factory, runF func(*StatusOptions) error) *cobra.Command {
	o := &StatusOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "status AGENT-ID --goal G --state STATE --next-action TEXT [--workspace SLUG] [--handoff REF] [--json]",
		Short: "Record a peer's state and next action on a goal",
		Args:  cmdutil.ExactArgs(1, "one agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Status.Agent = args[0]
			return cmdutil.RunOr(o, runF, statusRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the status recorded as JSON")
	fl, st := cmd.Flags(), &o.Status
	fl.StringVar(&st.Goal, "goal", "", "goal id")
	fl.StringVar(&st.State, "state", "", "state (working, blocked, done, ...)")
	fl.StringVar(&st.NextAction, "next-action", "", "what the peer does next")
	fl.StringVar(&st.Workspace, "workspace", "", "its worktree slug")
	fl.StringVar(&st.Handoff, "handoff", "", "a handoff reference")
	return cmd
}

func statusRun(o *StatusOptions) error {
	if err := o.App.SetPeerStatus(context.Background(), o.Status); err != nil {
		return err
	}
	return wrote(o.IO.Out, o.Export, o.JSON, o.Status, true, "recorded "+o.Status.Agent+"'s status on "+o.Status.Goal, "")
}
