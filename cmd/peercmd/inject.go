package peercmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// InjectOptions are the inputs of `supervisor inject`.
type InjectOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Request peers.InjectRequest
	Execute bool
	Export  *cmdutil.Exporter
}

// NewCmdInject returns `supervisor inject`.
func NewCmdInject(f *cmdutil.Factory, runF func(*InjectOptions) error) *cobra.Command {
	o := &InjectOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "inject --goal G --agent A --decision-id D --authority-ref R --rollback-mode M --rollback-policy-ref P [--apply]",
		Short: "The inject canary: validate, and with --apply send the message and record the executed receipt",
		Long: `Without --apply the whole request is validated (the decision exists and is an
inject, the target's session is live and its adapter declares
session_message_injection) and nothing is called. With --apply the message
goes through the host's session path and the executed (or failed) receipt is
appended with the capabilities the adapter declared. A prior executed receipt
suppresses a second send. Executing is off unless this clone's operator
enabled it: git config --local agentproto.supervisor.inject enabled.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, injectRun) },
	}
	o.Export = cmdutil.AddJQFlag(cmd)
	fl, r := cmd.Flags(), &o.Request
	supervisorFlags(cmd, &r.Goal, &r.Agent)
	fl.StringVar(&r.DecisionID, "decision-id", "", "the inject decision")
	fl.StringVar(&r.AuthorityRef, "authority-ref", "", "opaque reference to the authority for this execution")
	fl.StringVar(&r.RollbackMode, "rollback-mode", "", "compensating_action or not_reversible")
	fl.StringVar(&r.RollbackPolicyRef, "rollback-policy-ref", "", "opaque reference to the rollback policy")
	fl.BoolVar(&o.Execute, "execute", false, "send it")
	return cmd
}

func injectRun(o *InjectOptions) error {
	res, err := o.App.Inject(context.Background(), o.Request, o.Execute)
	if res == nil {
		return err
	}
	id, plan := o.Request.DecisionID, res.Plan
	switch {
	case res.Sent:
		if res.Receipt != nil {
			if werr := writeNamed(o.IO.Out, o.Export, peers.SchemaReceiptRecord, res.Receipt); err == nil {
				err = werr
			}
		}
		return err
	case plan.Already != nil:
		fmt.Fprintf(o.IO.ErrOut, "decision %s was already executed (receipt %s); nothing sent\n", id, plan.Already.Receipt.ReceiptID)
	default:
		fmt.Fprintf(o.IO.ErrOut, "valid: would inject decision %s into session %s (%d characters); nothing sent: add --apply\n", id, plan.Session, len(plan.Decision.Message))
	}
	return writeNamed(o.IO.Out, o.Export, peers.SchemaInjectPlan, plan)
}
