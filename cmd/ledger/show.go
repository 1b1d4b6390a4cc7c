package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
)

// ShowOptions are the inputs of `ledger show`.
type ShowOptions struct {
	IO     *cmdutil.IOStreams
	Ledger func() (*gitstore.Ledger, error)

	ID     string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdShow returns `ledger show`.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IO, Ledger: f.ReadLedger}
	cmd := &cobra.Command{
		Use:   "show ID [--json]",
		Short: "Show one ledger event by record id",
		Args:  cmdutil.ExactArgs(1, "one record id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the event as JSON, with its commit")
	return cmd
}

func showRun(o *ShowOptions) error {
	l, err := o.Ledger()
	if err != nil {
		return err
	}
	var warnings gitstore.Warnings
	e, commit, err := l.Lookup(o.ID, &warnings)
	cmdutil.Warn(o.IO.ErrOut, warnings)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, struct {
			*gitstore.Event
			Commit    string `json:"commit"`
			Retracted bool   `json:"retracted,omitempty"`
		}{e, commit, e.Retracted})
	}
	out := o.IO.Out
	fmt.Fprintf(out, "id:      %s\nkind:    %s\nlamport: %d\nwriter:  %s\ntime:    %s\ncommit:  %s\n",
		e.ID, e.Kind, e.Lamport, e.Writer, e.Time, commit)
	if e.Retracted {
		fmt.Fprintf(out, "state:   retracted: its writer's ref no longer holds it; this clone keeps what it read (see ledger verify)\n")
	}
	if e.Goal != "" {
		fmt.Fprintf(out, "goal:    %s\n", e.Goal)
	}
	if e.Agent != "" {
		fmt.Fprintf(out, "agent:   %s\n", e.Agent)
	}
	for _, a := range e.Attachments {
		fmt.Fprintf(out, "attachment: %s (%d bytes, blob %s)\n", a.Name, a.Size, a.OID)
	}
	// The data is canonical JSON: indenting it shows it as stored, numbers
	// and all, without decoding it.
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, e.Data, "  ", "  "); err != nil {
		pretty.Write(e.Data)
	}
	fmt.Fprintln(out, "data:")
	fmt.Fprintf(out, "  %s\n", pretty.Bytes())
	return nil
}
