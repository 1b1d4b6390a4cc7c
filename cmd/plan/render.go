package plan

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// RenderOptions are the inputs of `plan render`.
type RenderOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	WP      string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdRender returns `plan render`.
func NewCmdRender(f *cmdutil.Factory, runF func(*RenderOptions) error) *cobra.Command {
	o := &RenderOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "render PROJECT WPn [--json]",
		Short: "Print the executor's session prompt: a pointer to its frozen brief and the overrides",
		Args:  cmdutil.ExactArgs(2, "a plan name and a work package id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project, o.WP = args[0], args[1]
			return cmdutil.RunOr(o, runF, renderRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the prompt as JSON")
	return cmd
}

func renderRun(o *RenderOptions) error {
	pr, err := o.App.RenderPrompt(context.Background(), o.Project, o.WP)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, pr)
	}
	fmt.Fprint(o.IO.Out, pr.Prompt)
	return nil
}
