package peercmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// AttachOptions are the inputs of `peer attach`.
type AttachOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Agent   string
	Session string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdAttach returns `peer attach`.
func NewCmdAttach(f *cmdutil.Factory, runF func(*AttachOptions) error) *cobra.Command {
	o := &AttachOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "attach AGENT-ID --session ID [--json]",
		Short: "Attach a running session to a peer",
		Args:  cmdutil.ExactArgs(1, "one agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return cmdutil.RunOr(o, runF, attachRun)
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session id")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the peer as the ledger now has it as JSON")
	return cmd
}

func attachRun(o *AttachOptions) error {
	p, written, err := o.App.AttachPeerSession(context.Background(), o.Agent, o.Session)
	if err != nil {
		return err
	}
	return wrote(o.IO.Out, o.Export, o.JSON, p, written, "attached "+o.Session+" to "+o.Agent, o.Session+" is already attached to "+o.Agent)
}
