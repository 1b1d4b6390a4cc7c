package peercmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/peers"
)

// ConfigureOptions are the inputs of `goal configure`.
type ConfigureOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Goal       string
	Supervisor string
	Supervised []string
	Clear      bool
	Execute    bool
	Export     *cmdutil.Exporter
}

// NewCmdConfigure returns `goal configure`.
func NewCmdConfigure(f *cmdutil.Factory, runF func(*ConfigureOptions) error) *cobra.Command {
	o := &ConfigureOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "configure --goal G (--supervisor-agent A [--supervised-agent B]... | --clear-supervisor) [--apply]",
		Short: "Configure (or clear) the goal's supervisor; without --apply, validate and print only",
		Args:  cmdutil.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, configureRun) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Goal, "goal-id", "", "goal id")
	fl.StringVar(&o.Supervisor, "supervisor-agent", "", "the registered peer that supervises")
	fl.StringArrayVar(&o.Supervised, "supervised-agent", nil, "a peer it observes (repeatable; default: every other peer)")
	fl.BoolVar(&o.Clear, "clear-supervisor", false, "disable the supervisor")
	fl.BoolVar(&o.Execute, "execute", false, "record it")
	o.Export = cmdutil.AddJQFlag(cmd)
	return cmd
}

func configureRun(o *ConfigureOptions) error {
	if o.Clear == (o.Supervisor != "") {
		return fault.Invalidf("give --supervisor-agent, or --clear-supervisor")
	}
	cfg, written, err := o.App.ConfigureGoal(context.Background(), o.Goal, o.Supervisor, o.Supervised, o.Clear, o.Execute)
	if err != nil {
		return err
	}
	out := map[string]any{"goal": o.Goal, "coordination": map[string]any{"supervisor": cfg}, "recorded": written}
	if err := writeNamed(o.IO.Out, o.Export, peers.SchemaGoalConfig, out); err != nil {
		return err
	}
	if !o.Execute {
		fmt.Fprintln(o.IO.ErrOut, "(validated only; nothing written: add --apply)")
	}
	return nil
}
