package ledger

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// AppendOptions are the inputs of `ledger append`.
type AppendOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Kind     string
	ID       string
	Goal     string
	Agent    string
	Data     string
	DataFile string
	Attach   []string
	Batch    bool
	JSON     bool
	Export   *cmdutil.Exporter
}

// NewCmdAppend returns `ledger append`.
func NewCmdAppend(f *cmdutil.Factory, runF func(*AppendOptions) error) *cobra.Command {
	opts := &AppendOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "append (--kind KIND --id ID (--data JSON | --data-file F) | --batch)",
		Short: "Append events of a user kind (note, x.NAME) to the ledger",
		Long: `Append one event, or with --batch one event per JSON line read from stdin:
  {"kind": "note", "id": "n1", "data": {...}}   (optional: "goal", "agent")
The whole batch is validated before anything is written, and it becomes
visible at once. Appending a record id again with the same content succeeds
and writes nothing; with other content it fails with exit code 3.
Only user kinds (note, x.NAME) can be appended here; other kinds belong to
the command that records them (exit code 5).
--attach and --data-file read regular files only (no devices, FIFOs or
symbolic links); an attachment is at most 16 MiB, the data 1 MiB.`,
		Example: `  git agentproto ledger append --kind note --id n1 --data '{"text":"hello"}'
  printf '%s\n' '{"kind":"x.build","id":"b1","data":{"ok":true}}' | git agentproto ledger append --batch`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validateFlags(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return appendRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Kind, "kind", "", "event kind: note or x.NAME")
	fl.StringVar(&opts.ID, "id", "", "record id (makes the append idempotent)")
	fl.StringVar(&opts.Goal, "goal", "", "goal the event belongs to")
	fl.StringVar(&opts.Agent, "agent", "", "agent the event is about")
	fl.StringVar(&opts.Data, "data", "", "event data, a JSON object")
	fl.StringVar(&opts.DataFile, "data-file", "", "read the event data from a file (- for stdin)")
	fl.StringArrayVar(&opts.Attach, "attach", nil, "attach a file as NAME=PATH (repeatable)")
	fl.BoolVar(&opts.Batch, "batch", false, "read events as JSON lines from stdin")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the result as JSON")
	return cmd
}

func (o *AppendOptions) validateFlags(cmd *cobra.Command) error {
	if o.Batch {
		for _, name := range []string{"kind", "id", "data", "data-file", "attach", "goal", "agent"} {
			if cmd.Flags().Changed(name) {
				return fault.Invalidf("--batch reads everything from stdin; --%s cannot be used with it", name)
			}
		}
		return nil
	}
	if o.Kind == "" || o.ID == "" {
		return fault.Invalidf("--kind and --id are required (or use --batch)")
	}
	if cmd.Flags().Changed("data") && o.DataFile != "" {
		return fault.Invalidf("--data and --data-file cannot be used together")
	}
	return nil
}

func appendRun(o *AppendOptions) error {
	in := app.EventInput{Kind: o.Kind, ID: o.ID, Goal: o.Goal, Agent: o.Agent, Data: o.Data, DataFile: o.DataFile, Attach: o.Attach}
	drafts, err := app.EventDrafts(in, o.Batch, o.IO.In)
	if err != nil {
		return err
	}
	res, err := o.App.AppendEvents(context.Background(), drafts, o.Batch)
	if res != nil {
		cmdutil.Warn(o.IO.ErrOut, res.Warnings)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, map[string]any{
			"writer": res.Writer, "tip": res.Tip,
			"written": len(res.Written), "existing": len(res.Existing),
		})
	}
	switch {
	case !o.Batch && len(res.Written) == 1:
		fmt.Fprintf(o.IO.Out, "recorded %s on %s%s\n", res.Written[0], gitstore.LedgerRefPrefix, res.Writer)
	case !o.Batch:
		fmt.Fprintf(o.IO.Out, "%s is already recorded with the same content; nothing written\n", drafts[0].ID)
	default:
		fmt.Fprintf(o.IO.Out, "recorded %d events (%d already present) on %s%s\n",
			len(res.Written), len(res.Existing), gitstore.LedgerRefPrefix, res.Writer)
	}
	return nil
}
