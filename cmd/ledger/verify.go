package ledger

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
)

// VerifyOptions are the inputs of `ledger verify`.
type VerifyOptions struct {
	IO     *cmdutil.IOStreams
	Ledger func() (*gitstore.Ledger, error)
	JSON   bool
	Export *cmdutil.Exporter
}

// ErrFindings is returned when verify found problems; the findings were
// already printed.
var ErrFindings = fmt.Errorf("the ledger has findings")

// NewCmdVerify returns `ledger verify`.
func NewCmdVerify(f *cmdutil.Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: f.IO, Ledger: f.ReadLedger}
	cmd := &cobra.Command{
		Use:   "verify [--json]",
		Short: "Check every ledger event against git; exit 1 with findings",
		Long: `Read every event of every writer ref straight from git and check the
envelope, record id, kind, writer, clock order, chain shape, canonical data,
attachments, and the seals of sealed kinds on this clone's own ref (an event
committed there by hand is unsealed). Exit code 1 when anything is found.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(opts)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the report as JSON")
	return cmd
}

func verifyRun(o *VerifyOptions) error {
	l, err := o.Ledger()
	if err != nil {
		return err
	}
	rep, err := l.Verify()
	if err != nil {
		return err
	}
	if o.JSON {
		if err := o.Export.Write(o.IO.Out, struct {
			OK bool `json:"ok"`
			*gitstore.VerifyReport
		}{rep.OK(), rep}); err != nil {
			return err
		}
	} else {
		for _, f := range rep.Findings {
			at := f.Ref
			if f.Commit != "" {
				at += " " + f.Commit[:12]
			}
			if f.ID != "" {
				at += " " + f.ID
			}
			fmt.Fprintf(o.IO.Out, "%s: %s: %s\n", f.Code, at, f.Message)
		}
		fmt.Fprintf(o.IO.Out, "%d events on %d writer refs, %d findings\n", rep.Events, rep.Refs, len(rep.Findings))
	}
	if !rep.OK() {
		return cmdutil.Silent(ErrFindings)
	}
	return nil
}
