package pipelinecmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// PRAnswerOptions are the inputs of `pr answer`.
type PRAnswerOptions struct {
	deps
	app.PRAnswerOptions
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdPRAnswer returns `pr answer`.
func NewCmdPRAnswer(f *cmdutil.Factory, runF func(*PRAnswerOptions) error) *cobra.Command {
	opts := &PRAnswerOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "answer PROJECT ITEM --choice retry|dismiss|WPn [--note TEXT] [--json]",
		Short: "Answer an item of the pull request that waits for the supervisor: retry it, give it to a work package, or dismiss it",
		Long: `An item of the plan's pull request escalates — waits for the supervisor — when
the retries did not fix it, when no single work package owns what it names
(a shared file, a file of nobody's, a check that names no file), or when
[reactions] says so. plan status lists each with what was tried. Answer it:

  retry    its owners get their turns again, as a new incident
  WPn      that work package gets it (for an item no WP owns)
  dismiss  nothing more is done about it (a person handled it)

The next poll acts on the answer (pr watch, or the daemon's watch). An item
that is not waiting is refused (exit 5) and nothing is written.`,
		Args: cmdutil.ExactArgs(2, "a plan name and an item (check:NAME, comment:ID, review:ID)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Project, opts.Item = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return prAnswerRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Choice, "choice", "", "retry, dismiss, or the work package that takes the item")
	fl.StringVar(&opts.Note, "note", "", "why: kept in the ledger and shown if it escalates again")
	cmd.MarkFlagRequired("choice")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the answer as JSON")
	return cmd
}

func prAnswerRun(o *PRAnswerOptions) error {
	a, err := o.App.AnswerPR(context.Background(), o.PRAnswerOptions)
	switch {
	case err != nil:
		return err
	case o.JSON:
		return o.Export.Write(o.IO.Out, a)
	case !a.Recorded:
		fmt.Fprintln(o.IO.Out, "this answer is already recorded; nothing written")
	case len(a.WPs) == 0:
		fmt.Fprintf(o.IO.Out, "dismissed %s on pull request #%d: nothing more is done about it\n", a.Item, a.Number)
	default:
		fmt.Fprintf(o.IO.Out, "%s on pull request #%d goes to %s at the next poll (git agentproto pr watch %s)\n", a.Item, a.Number, strings.Join(a.WPs, ", "), a.Project)
	}
	return nil
}
