package plan

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/plans"
)

// AnswerOptions are the inputs of `plan answer`.
type AnswerOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	WP      string
	Choice  string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdAnswer returns `plan answer`.
func NewCmdAnswer(f *cmdutil.Factory, runF func(*AnswerOptions) error) *cobra.Command {
	o := &AnswerOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "answer PROJECT WPn --choice TEXT [--json]",
		Short: "Answer the question a WP stopped on: record the choice in the SPEC and send it to the WP's session",
		Args:  cmdutil.ExactArgs(2, "a plan name and a WP id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project, o.WP = args[0], args[1]
			return cmdutil.RunOr(o, runF, answerRun)
		},
	}
	cmd.Flags().StringVar(&o.Choice, "choice", "", "the supervisor's choice")
	cmd.MarkFlagRequired("choice")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the answer as JSON")
	return cmd
}

func answerRun(o *AnswerOptions) error {
	p, a, err := o.App.AnswerDecision(context.Background(), o.Project, o.WP, o.Choice)
	if a != nil && a.OffOptions {
		fmt.Fprintf(o.IO.ErrOut, "note: %q is none of the options the session offered\n", o.Choice)
	}
	if o.JSON && a != nil {
		// Recorded but not sent is still an answer: its document, then the error.
		if werr := o.Export.Write(o.IO.Out, a); werr != nil {
			return werr
		}
		return err
	}
	switch {
	case err != nil:
		return err
	case !a.Recorded:
		fmt.Fprintln(o.IO.Out, "this answer is already recorded; nothing written or sent")
		return nil
	}
	fmt.Fprintf(o.IO.Out, "recorded the answer for %s in %s and sent it to session %s; verify it when its turn ends (git agentproto verify %s %s)\n",
		a.WP, filepath.Join(plans.Dir, p.Name, "SPEC.md"), a.Session, p.Name, a.WP)
	return nil
}
