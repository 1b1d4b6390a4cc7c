package peercmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// ClaimOptions are the inputs of `todo claim`.
type ClaimOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Claim  app.ClaimOptions
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdClaim returns `todo claim`.
func NewCmdClaim(f *cmdutil.Factory, runF func(*ClaimOptions) error) *cobra.Command {
	o := &ClaimOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "claim --goal G --todo T --agent A [--lease 30m] [--as A] [--local] [--json]", Short: "Claim a todo for a lease through the claims remote (a peer claims only for itself)", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, claimRun) },
	}
	fl, c := cmd.Flags(), &o.Claim
	fl.StringVar(&c.Goal, "goal", "", "goal id")
	fl.StringVar(&c.Todo, "todo", "", "todo id")
	fl.StringVar(&c.Agent, "agent", "", "the claiming peer")
	fl.DurationVar(&c.Lease, "lease", 30*time.Minute, "lease length")
	fl.StringVar(&c.As, "as", "", "the peer acting (default: --agent)")
	fl.BoolVar(&c.Local, "local", false, "claim on this clone only, without the remote arbiter")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the claim as JSON")
	return cmd
}

func claimRun(o *ClaimOptions) error {
	c, err := o.App.ClaimTodo(context.Background(), o.Claim)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, c)
	}
	where := "on this clone only"
	if c.Arbiter == peers.ArbiterRemote {
		where = "on " + c.Remote
	}
	fmt.Fprintf(o.IO.Out, "%s claims %s until %s %s\n", c.Agent, c.Todo, c.Until, where)
	return nil
}
