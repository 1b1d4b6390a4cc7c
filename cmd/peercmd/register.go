package peercmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// RegisterOptions are the inputs of `peer register`.
type RegisterOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Agent        string
	Adapter      string
	Capabilities []string
	QuotaTurns   int
	Session      string
	// AddressVia and AddressedBy are the peer's addressing contract.
	AddressVia  []string
	AddressedBy []string
	JSON        bool
	Export      *cmdutil.Exporter
}

// NewCmdRegister returns `peer register`.
func NewCmdRegister(f *cmdutil.Factory, runF func(*RegisterOptions) error) *cobra.Command {
	o := &RegisterOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "register AGENT-ID --adapter NAME [--capability C]... [--quota-turns N] [--session ID] [--address-via HOW]... [--addressed-by WHO]... [--json]",
		Short: "Register a peer agent (capabilities default to what its adapter declares)",
		Args:  cmdutil.ExactArgs(1, "one agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return cmdutil.RunOr(o, runF, registerRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the peer as the ledger now has it as JSON")
	fl := cmd.Flags()
	fl.StringVar(&o.Adapter, "adapter", "", "adapter name")
	fl.StringArrayVar(&o.Capabilities, "capability", nil, "a capability (repeatable; default: the adapter's own)")
	fl.IntVar(&o.QuotaTurns, "quota-turns", 0, "turns the peer may spend (0: no limit)")
	fl.StringVar(&o.Session, "session", "", "attach this running session")
	fl.StringArrayVar(&o.AddressVia, "address-via", nil, "how the peer may be addressed: "+strings.Join(peers.ContractVia, ", ")+" (repeatable)")
	fl.StringArrayVar(&o.AddressedBy, "addressed-by", nil, "who may address it: "+strings.Join(peers.ContractBy, ", ")+" or an agent id (repeatable)")
	return cmd
}

// contract is the addressing contract the flags give, nil when none.
func (o *RegisterOptions) contract() *peers.Contract {
	if len(o.AddressVia) == 0 && len(o.AddressedBy) == 0 {
		return nil
	}
	return &peers.Contract{Via: append([]string{}, o.AddressVia...), By: append([]string{}, o.AddressedBy...)}
}

func registerRun(o *RegisterOptions) error {
	p, written, err := o.App.RegisterPeer(context.Background(), app.RegisterPeerOptions{Agent: o.Agent, Adapter: o.Adapter,
		Capabilities: o.Capabilities, QuotaTurns: o.QuotaTurns, Session: o.Session, Contract: o.contract()})
	if err != nil {
		return err
	}
	return wrote(o.IO.Out, o.Export, o.JSON, p, written, "registered "+o.Agent, o.Agent+" is already registered with the same details")
}
