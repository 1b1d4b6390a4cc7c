package peercmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// GoalNewOptions are the inputs of `goal new`.
type GoalNewOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	ID     string
	Title  string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdGoalNew returns `goal new`.
func NewCmdGoalNew(f *cmdutil.Factory, runF func(*GoalNewOptions) error) *cobra.Command {
	o := &GoalNewOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "new GOAL-ID --title T [--json]",
		Short: "Create a goal",
		Args:  cmdutil.ExactArgs(1, "one goal id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			return cmdutil.RunOr(o, runF, goalNewRun)
		},
	}
	cmd.Flags().StringVar(&o.Title, "title", "", "title")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the goal recorded as JSON")
	return cmd
}

func goalNewRun(o *GoalNewOptions) error {
	written, err := o.App.NewGoal(context.Background(), o.ID, o.Title)
	if err != nil {
		return err
	}
	return wrote(o.IO.Out, o.Export, o.JSON, peers.GoalCreated{ID: o.ID, Title: o.Title}, written, "created goal "+o.ID, "goal "+o.ID+" already exists with that title")
}
