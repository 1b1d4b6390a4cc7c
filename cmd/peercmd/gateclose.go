package peercmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// GateCloseOptions are the inputs of `goal gate close`.
type GateCloseOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Goal   string
	ID     string
	Answer string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdGateClose returns `goal gate close`.
func NewCmdGateClose(f *cmdutil.Factory, runF func(*GateCloseOptions) error) *cobra.Command {
	o := &GateCloseOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "close --goal G --id GATE --answer A [--json]", Short: "Close a user gate with the user's answer", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, gateCloseRun) },
	}
	cmd.Flags().StringVar(&o.Goal, "goal", "", "goal id")
	cmd.Flags().StringVar(&o.ID, "id", "", "gate id")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the record as JSON")
	cmd.Flags().StringVar(&o.Answer, "answer", "", "the user's decision")
	return cmd
}

func gateCloseRun(o *GateCloseOptions) error {
	written, err := o.App.CloseGate(context.Background(), o.Goal, o.ID, o.Answer)
	if err != nil {
		return err
	}
	return wrote(o.IO.Out, o.Export, o.JSON, peers.GateClosed{Goal: o.Goal, Gate: o.ID, Answer: o.Answer}, written,
		"closed gate "+o.ID+" of goal "+o.Goal, "gate "+o.ID+" is already closed with that answer")
}
