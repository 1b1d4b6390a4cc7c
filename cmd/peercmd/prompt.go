package peercmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// PromptOptions are the inputs of `supervisor prompt`.
type PromptOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Goal   string
	Agent  string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdPrompt returns `supervisor prompt`.
func NewCmdPrompt(f *cmdutil.Factory, runF func(*PromptOptions) error) *cobra.Command {
	o := &PromptOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "prompt --goal G --agent A [--json]", Short: "Print the supervisor's task body", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, promptRun) },
	}
	supervisorFlags(cmd, &o.Goal, &o.Agent)
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, `print {"goal","agent","prompt","lessons"} as JSON`)
	return cmd
}

// supervisorFlags are the goal and the supervisor every supervisor verb
// names.
func supervisorFlags(cmd *cobra.Command, goal, agent *string) {
	cmd.Flags().StringVar(goal, "goal-id", "", "goal id")
	cmd.Flags().StringVar(agent, "agent-id", "", "the supervisor's agent id")
}

func promptRun(o *PromptOptions) error {
	b, err := o.App.SupervisorPrompt(context.Background(), o.Goal, o.Agent)
	switch {
	case err != nil:
		return err
	case o.JSON:
		return o.Export.Write(o.IO.Out, b)
	}
	fmt.Fprint(o.IO.Out, b.Prompt)
	if len(b.Lessons) > 0 {
		fmt.Fprintln(o.IO.Out, "\nLessons from earlier runs:")
		for _, l := range b.Lessons {
			fmt.Fprintf(o.IO.Out, "- %s\n", l.Text)
		}
	}
	return nil
}
