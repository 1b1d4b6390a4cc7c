package peercmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// QuotaGuardOptions are the inputs of `peer quota-guard`.
type QuotaGuardOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Agent  string
	As     string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdQuotaGuard returns `peer quota-guard`.
func NewCmdQuotaGuard(f *cmdutil.Factory, runF func(*QuotaGuardOptions) error) *cobra.Command {
	o := &QuotaGuardOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "quota-guard AGENT-ID [--as AGENT] [--json]",
		Short: "Exit 0 with the turns a peer has left; exit 5 when spent",
		Args:  cmdutil.ExactArgs(1, "one agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return cmdutil.RunOr(o, runF, quotaGuardRun)
		},
	}
	cmd.Flags().StringVar(&o.As, "as", "", "the agent asking (a peer may check only its own quota)")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print as JSON")
	return cmd
}

// quotaGuardRun prints the quota even when it is spent: the exit code
// says so, the line says by how much.
func quotaGuardRun(o *QuotaGuardOptions) error {
	q, err := o.App.QuotaGuard(context.Background(), o.Agent, o.As)
	switch {
	case q == nil:
	case o.JSON:
		o.Export.Write(o.IO.Out, q)
	case q.Unlimited:
		fmt.Fprintf(o.IO.Out, "%s: %d turns used, no limit\n", q.Agent, q.Turns)
	default:
		fmt.Fprintf(o.IO.Out, "%s: %d of %d turns used, %d left\n", q.Agent, q.Turns, q.Limit, q.Remaining)
	}
	return err
}
