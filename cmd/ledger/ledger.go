// Package ledger wires the `ledger` verbs: append, log, show, verify, reindex.
package ledger

import (
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// NewCmdLedger returns the `ledger` command.
func NewCmdLedger(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger <command>",
		Short: "Append to and read the event ledger stored on refs/agentproto/ledger/*",
		Long: `The ledger is an append-only log of events. Each event is one commit on
refs/agentproto/ledger/<writer>, one ref per clone; readers take the union of
every writer's ref, ordered by (lamport, writer, id). It travels with git fetch
and git push (see git agentproto sync).`,
	}
	cmd.AddCommand(NewCmdAppend(f, nil))
	cmd.AddCommand(NewCmdLog(f, nil))
	cmd.AddCommand(NewCmdShow(f, nil))
	cmd.AddCommand(NewCmdVerify(f, nil))
	cmd.AddCommand(NewCmdReindex(f, nil))
	cmd.AddCommand(NewCmdRepair(f, nil))
	return cmd
}
