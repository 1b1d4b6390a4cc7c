package peercmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// TodoAddOptions are the inputs of `todo add`.
type TodoAddOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Goal   string
	ID     string
	Title  string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdTodoAdd returns `todo add`.
func NewCmdTodoAdd(f *cmdutil.Factory, runF func(*TodoAddOptions) error) *cobra.Command {
	o := &TodoAddOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "add --goal G --id T --title TITLE [--json]", Short: "Add a todo to a goal", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, todoAddRun) },
	}
	cmd.Flags().StringVar(&o.Goal, "goal", "", "goal id")
	cmd.Flags().StringVar(&o.ID, "id", "", "todo id")
	cmd.Flags().StringVar(&o.Title, "title", "", "title")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the todo recorded as JSON")
	return cmd
}

func todoAddRun(o *TodoAddOptions) error {
	written, err := o.App.AddTodo(context.Background(), o.Goal, o.ID, o.Title)
	if err != nil {
		return err
	}
	return wrote(o.IO.Out, o.Export, o.JSON, peers.TodoAdded{Goal: o.Goal, Todo: o.ID, Title: o.Title}, written, "added todo "+o.ID, "todo "+o.ID+" already exists")
}
