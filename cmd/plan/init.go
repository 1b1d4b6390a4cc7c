package plan

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// InitOptions are the inputs of `plan init`.
type InitOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	Base    string
	Gate    string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdInit returns `plan init`.
func NewCmdInit(f *cmdutil.Factory, runF func(*InitOptions) error) *cobra.Command {
	o := &InitOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "init PROJECT [--base REV] [--gate CMD] [--json]",
		Short: "Create .plans/PROJECT with plan.toml, SPEC.md, CONTRACT.md and WP0-brief.md",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project = args[0]
			return cmdutil.RunOr(o, runF, initRun)
		},
	}
	cmd.Flags().StringVar(&o.Base, "base", "", "base revision (default: the current branch)")
	cmd.Flags().StringVar(&o.Gate, "gate", "", "gate command (default: [plans] gate)")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the plan made and the files written as JSON")
	return cmd
}

func initRun(o *InitOptions) error {
	res, err := o.App.InitPlan(context.Background(), o.Project, o.Base, o.Gate)
	if res == nil {
		return err
	}
	// With --json the files written are chatter; the document is the data.
	out := o.IO.Out
	if o.JSON {
		out = o.IO.ErrOut
	}
	for _, w := range res.Written {
		fmt.Fprintln(out, "wrote", w)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, res)
	}
	fmt.Fprintf(out, "next: fill them in, then git agentproto plan check %s\n", o.Project)
	return nil
}
