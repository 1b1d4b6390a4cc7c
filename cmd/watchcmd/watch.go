// Package watchcmd is `git agentproto watch`, the live view of a run.
package watchcmd

import (
	"context"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/watch"
)

// NewCmdWatch builds the watch command.
func NewCmdWatch(f *cmdutil.Factory) *cobra.Command {
	var goal string
	var once, asJSON bool
	cmd := &cobra.Command{
		Use:   "watch [PROJECT] [--goal G] [--once] [--json]",
		Short: "A live view of the run: work packages, sessions, policies, peers and a session's output",
		Long: `Show the plan's work packages (state, verify verdict, checkpoint, spend), the
plan's spend, every session of the daemon (state, turns, last activity, spend,
faults and warnings), the policies attached, the peers and claims of --goal, and
the selected session's clean output. The view redraws when the ledger or a
session changes.

Keys: tab switches between work packages and sessions, up/down (j/k) select,
v verifies the selected work package, p prompts the selected session, i
interrupts its turn and x kills it (both ask first), q quits.

Without a terminal, --once prints one snapshot (--json as a document).`,
		Args: cmdutil.MaxArgs(1, "at most one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			project := ""
			if len(args) == 1 {
				project = args[0]
			}
			wt, err := f.App().Watch(context.Background(), project, goal)
			if err != nil {
				return err
			}
			src := wt.Sources
			if once || asJSON {
				snap := watch.Take(src)
				if asJSON {
					return cmdutil.ExportJSON(cmd, f.IO.Out, snap)
				}
				fmt.Fprint(f.IO.Out, watch.Once(snap, 120))
				return nil
			}
			if !f.IO.IsStdoutTTY() {
				return fault.Invalidf("watch needs a terminal; use --once (or --json) for one snapshot")
			}
			// Colour only on a terminal (it is one here) and never with
			// NO_COLOR, whatever its value.
			_, noColor := os.LookupEnv("NO_COLOR")
			m := watch.New(src, wt.Watched, wt.Actions, !noColor)
			_, err = tea.NewProgram(m).Run()
			return err
		},
	}
	cmd.Flags().StringVar(&goal, "goal", "", "also show the peers and claims of this goal")
	cmd.Flags().BoolVar(&once, "once", false, "print one snapshot and exit")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print one snapshot as JSON and exit")
	return cmd
}
