package peercmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// GateAddOptions are the inputs of `goal gate add`.
type GateAddOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Goal     string
	ID       string
	Question string
	JSON     bool
	Export   *cmdutil.Exporter
}

// NewCmdGateAdd returns `goal gate add`.
func NewCmdGateAdd(f *cmdutil.Factory, runF func(*GateAddOptions) error) *cobra.Command {
	o := &GateAddOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "add --goal G --id GATE --question Q [--json]", Short: "Open a user gate of a goal", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, gateAddRun) },
	}
	cmd.Flags().StringVar(&o.Goal, "goal", "", "goal id")
	cmd.Flags().StringVar(&o.ID, "id", "", "gate id")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the record as JSON")
	cmd.Flags().StringVar(&o.Question, "question", "", "the decision the user must take")
	return cmd
}

func gateAddRun(o *GateAddOptions) error {
	written, err := o.App.AddGate(context.Background(), o.Goal, o.ID, o.Question)
	if err != nil {
		return err
	}
	return wrote(o.IO.Out, o.Export, o.JSON, peers.GateOpened{Goal: o.Goal, Gate: o.ID, Question: o.Question}, written,
		"opened gate "+o.ID+" of goal "+o.Goal, "gate "+o.ID+" is already open with that question")
}
