package ledger

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// LogOptions are the inputs of `ledger log`.
type LogOptions struct {
	IO     *cmdutil.IOStreams
	Ledger func() (*gitstore.Ledger, error)

	Kind    string
	Limit   int
	Reverse bool
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdLog returns `ledger log`.
func NewCmdLog(f *cmdutil.Factory, runF func(*LogOptions) error) *cobra.Command {
	opts := &LogOptions{IO: f.IO, Ledger: f.ReadLedger}
	cmd := &cobra.Command{
		Use:   "log [--json] [--kind K] [--limit N]",
		Short: "List ledger events, newest first",
		Long: `List the events of every writer in ledger order, newest first.
With --json each line is one event envelope exactly as stored.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return fault.Invalidf("--limit must be 0 (all) or more, got %d", opts.Limit)
			}
			if opts.Kind != "" {
				if err := gitstore.ValidateKind(opts.Kind); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return logRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Kind, "kind", "", "only events of this kind")
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 0, "at most this many events (0 = all)")
	cmd.Flags().BoolVar(&opts.Reverse, "reverse", false, "oldest first")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "one JSON envelope per line")
	return cmd
}

func logRun(o *LogOptions) error {
	l, err := o.Ledger()
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(o.IO.Out, 256*1024)
	var warnings gitstore.Warnings
	q := gitstore.Query{Limit: o.Limit, Reverse: o.Reverse, Warnings: &warnings}
	if o.Kind != "" {
		q.Kinds = []string{o.Kind}
	}
	if o.JSON {
		err = l.Envelopes(q, func(env []byte) error {
			if o.Export.Filtering() {
				return o.Export.WriteRaw(w, env)
			}
			w.Write(env)
			return w.WriteByte('\n')
		})
	} else {
		for e, rerr := range l.Events(q) {
			if err = rerr; err == nil {
				err = writeLogLine(w, e)
			}
			if err != nil {
				break
			}
		}
	}
	cmdutil.Warn(o.IO.ErrOut, warnings)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// writeLogLine prints one event for people: clock, time, kind, id, writer
// and the data, cut to keep one line per event.
func writeLogLine(w *bufio.Writer, e *gitstore.Event) error {
	data := string(e.Data)
	if len(data) > 80 {
		data = data[:77] + "..."
	}
	extra := ""
	if e.Goal != "" {
		extra += " goal=" + e.Goal
	}
	if e.Agent != "" {
		extra += " agent=" + e.Agent
	}
	if len(e.Attachments) > 0 {
		names := make([]string, len(e.Attachments))
		for i, a := range e.Attachments {
			names[i] = a.Name
		}
		extra += " attachments=" + strings.Join(names, ",")
	}
	if e.Retracted {
		extra += " [retracted by its writer]"
	}
	_, err := fmt.Fprintf(w, "%6d  %s  %-14s %-16s (%s)%s %s\n", e.Lamport, e.Time[:19], e.Kind, e.ID, e.Writer, extra, data)
	return err
}
