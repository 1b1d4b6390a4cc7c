package ledger

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
)

// RepairOptions are the inputs of `ledger repair`.
type RepairOptions struct {
	IO     *cmdutil.IOStreams
	Ledger func() (*gitstore.Ledger, error)
	JSON   bool
}

// NewCmdRepair returns `ledger repair`.
func NewCmdRepair(f *cmdutil.Factory, runF func(*RepairOptions) error) *cobra.Command {
	opts := &RepairOptions{IO: f.IO, Ledger: f.Ledger}
	cmd := &cobra.Command{
		Use:   "repair",
		Short: "Recover this clone's ledger ref from a damaged or missing object",
		Long: `An append checks the commit it builds on; when an object of this clone's own
ledger ref is damaged (a corrupt or missing commit), append, reindex and log
say so and name this command. repair moves the ref back to the newest commit
whose whole history reads, and records again, from the index, every event of
the commits after it (same ids, kinds and data; new clocks). It names the
damaged commits and anything it could not record again. With nothing damaged
it changes nothing. Another writer's damaged ref is restored by sync.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			l, err := opts.Ledger()
			if err != nil {
				return err
			}
			rep, err := l.Repair()
			if err != nil {
				return err
			}
			if opts.JSON {
				return cmdutil.ExportJSON(cmd, opts.IO.Out, rep)
			}
			out := opts.IO.Out
			if len(rep.Damaged) == 0 {
				fmt.Fprintf(out, "%s reads whole; nothing to repair\n", rep.Ref)
				return nil
			}
			fmt.Fprintf(out, "damaged: %s\n", strings.Join(rep.Damaged, " "))
			kept := rep.KeptTip
			if kept == "" {
				kept = "(none: the ref starts again)"
			}
			fmt.Fprintf(out, "%s now at %s; recorded again: %d events\n", rep.Ref, kept, len(rep.Recorded))
			for _, l := range rep.Lost {
				fmt.Fprintf(opts.IO.ErrOut, "warning: not recorded again: %s\n", l)
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the result as JSON")
	return cmd
}
