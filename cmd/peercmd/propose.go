package peercmd

import (
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// ProposeOptions are the inputs of `supervisor event propose`.
type ProposeOptions struct{ recordInput }

// NewCmdPropose returns `supervisor event propose`.
func NewCmdPropose(f *cmdutil.Factory, runF func(*ProposeOptions) error) *cobra.Command {
	o := &ProposeOptions{recordInput{IO: f.IO, App: f.App()}}
	cmd := &cobra.Command{
		Use:   "propose --goal G --agent A --decision-json F [--apply]",
		Short: "Validate a supervisor_decision_v0 and, with --apply, record it (supervisor_proposed)",
		Args:  cmdutil.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, proposeRun) },
	}
	supervisorFlags(cmd, &o.Goal, &o.Agent)
	o.Export = cmdutil.AddJQFlag(cmd)
	cmd.Flags().StringVar(&o.File, "decision-json", "", "file holding the decision")
	cmd.Flags().BoolVar(&o.Execute, "execute", false, "record it")
	return cmd
}

func proposeRun(o *ProposeOptions) error {
	return validateThenRecord(&o.recordInput, "decision-json", "the decision", peers.SchemaProposal, func(s *peers.Service, d *peers.Decision) (any, bool, error) {
		return s.Propose(o.Goal, o.Agent, d, o.Execute)
	})
}
