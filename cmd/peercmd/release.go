package peercmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// ReleaseOptions are the inputs of `todo release`.
type ReleaseOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Claim  app.ClaimOptions
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdRelease returns `todo release`.
func NewCmdRelease(f *cmdutil.Factory, runF func(*ReleaseOptions) error) *cobra.Command {
	o := &ReleaseOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "release --goal G --todo T --agent A [--as A] [--local] [--json]", Short: "Release a claimed todo", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, releaseRun) },
	}
	fl, c := cmd.Flags(), &o.Claim
	fl.StringVar(&c.Goal, "goal", "", "goal id")
	fl.StringVar(&c.Todo, "todo", "", "todo id")
	fl.StringVar(&c.Agent, "agent", "", "the peer holding it")
	fl.StringVar(&c.As, "as", "", "the peer acting (default: --agent)")
	fl.BoolVar(&c.Local, "local", false, "release a claim taken with --local")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the release recorded as JSON")
	return cmd
}

func releaseRun(o *ReleaseOptions) error {
	c, err := o.App.ReleaseTodo(context.Background(), o.Claim)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, c)
	}
	fmt.Fprintf(o.IO.Out, "%s released %s\n", o.Claim.Agent, o.Claim.Todo)
	return nil
}
