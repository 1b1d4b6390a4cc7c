package ledger

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
)

// ReindexOptions are the inputs of `ledger reindex`.
type ReindexOptions struct {
	IO     *cmdutil.IOStreams
	Ledger func() (*gitstore.Ledger, error)
	JSON   bool
}

// NewCmdReindex returns `ledger reindex`.
func NewCmdReindex(f *cmdutil.Factory, runF func(*ReindexOptions) error) *cobra.Command {
	opts := &ReindexOptions{IO: f.IO, Ledger: f.ReadLedger}
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the ledger index from git",
		Long: `The index under the common git dir is a cache of the ledger refs. It is kept
current automatically, keyed by each ref's tip; reindex reads every event again
from git into a new index, which replaces the old one only once it is whole:
commands running meanwhile go on, and a reindex that fails (a damaged object)
leaves the old index as it was.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			l, err := opts.Ledger()
			if err != nil {
				return err
			}
			n, warnings, err := l.Reindex()
			cmdutil.Warn(opts.IO.ErrOut, warnings)
			if err != nil {
				return err
			}
			if opts.JSON {
				return cmdutil.ExportJSON(cmd, opts.IO.Out, map[string]int{"events": n})
			}
			fmt.Fprintf(opts.IO.Out, "indexed %d events\n", n)
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the result as JSON")
	return cmd
}
