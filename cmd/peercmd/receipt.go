package peercmd

import (
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// ReceiptOptions are the inputs of `supervisor event receipt`.
type ReceiptOptions struct{ recordInput }

// NewCmdReceipt returns `supervisor event receipt`.
func NewCmdReceipt(f *cmdutil.Factory, runF func(*ReceiptOptions) error) *cobra.Command {
	o := &ReceiptOptions{recordInput{IO: f.IO, App: f.App()}}
	cmd := &cobra.Command{
		Use:   "receipt --goal G --agent A --receipt-json F [--apply]",
		Short: "Validate a rejected or failed supervisor_receipt_v0 and, with --apply, record it",
		Long: `The CLI records rejected and failed attempts only. An executed receipt is refused
here (exit 5): only the host adapter path can write one, with capabilities it
verified itself, an authority reference, evidence and a rollback boundary.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, receiptRun) },
	}
	supervisorFlags(cmd, &o.Goal, &o.Agent)
	o.Export = cmdutil.AddJQFlag(cmd)
	cmd.Flags().StringVar(&o.File, "receipt-json", "", "file holding the receipt")
	cmd.Flags().BoolVar(&o.Execute, "execute", false, "record it")
	return cmd
}

func receiptRun(o *ReceiptOptions) error {
	return validateThenRecord(&o.recordInput, "receipt-json", "the receipt", peers.SchemaReceiptRecord, func(s *peers.Service, r *peers.ReceiptDoc) (any, bool, error) {
		return s.RecordReceipt(o.Goal, o.Agent, r, o.Execute)
	})
}
