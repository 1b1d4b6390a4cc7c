package plan

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// NewWPOptions are the inputs of `plan new-wp`.
type NewWPOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	WP      string
	Title   string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdNewWP returns `plan new-wp`.
func NewCmdNewWP(f *cmdutil.Factory, runF func(*NewWPOptions) error) *cobra.Command {
	o := &NewWPOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "new-wp PROJECT WPn [--title T] [--json]",
		Short: "Add a work package: its brief (with the contract block) and its [[wp]] entry",
		Args:  cmdutil.ExactArgs(2, "a plan name and a work package id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project, o.WP = args[0], args[1]
			return cmdutil.RunOr(o, runF, newWPRun)
		},
	}
	cmd.Flags().StringVar(&o.Title, "title", "", "title of the work package")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the work package added as JSON")
	return cmd
}

func newWPRun(o *NewWPOptions) error {
	res, err := o.App.AddWP(context.Background(), o.Project, o.WP, o.Title)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, res)
	}
	fmt.Fprintf(o.IO.Out, "wrote %s and added %s to %s\n", res.Brief, res.WP, res.Plan)
	return nil
}
