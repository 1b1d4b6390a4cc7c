package sessionscmd

import (
	"bufio"
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// OutputOptions are the inputs of `sessions output`.
type OutputOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	ID     string
	Last   int
	Follow bool
	Clean  bool
	JSON   bool
	Export *cmdutil.Exporter
}

func newCmdOutput(f *cmdutil.Factory, runF func(*OutputOptions) error) *cobra.Command {
	opts := &OutputOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "output ID [--last N] [--follow] [--clean] [--json]",
		Short: "Print a session's output (the last N lines; --follow until it ends)",
		Args:  cmdutil.ExactArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return cmdutil.RunOr(opts, runF, outputRun)
		},
	}
	cmd.Flags().IntVar(&opts.Last, "last", 0, "only the last N lines")
	cmd.Flags().BoolVar(&opts.Follow, "follow", false, "keep printing until the session ends")
	cmd.Flags().BoolVar(&opts.Clean, "clean", false, "strip terminal escapes and control characters")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, `one JSON document per output line: {"session","line"}`)
	return cmd
}

func outputRun(o *OutputOptions) error {
	ctx := context.Background()
	rec, b, err := o.App.SessionOutput(ctx, o.ID)
	if err != nil {
		return err
	}
	if o.Last < 0 {
		return fault.Invalidf("--last must be 0 (all) or more")
	}
	w := bufio.NewWriter(o.IO.Out)
	defer w.Flush()
	lines := &app.OutputLines{Session: rec.ID, Emit: func(l app.OutputLine) error { return o.Export.Write(w, l) }}
	if o.JSON {
		defer lines.Flush()
	}
	emit := func(p []byte) {
		if o.Clean {
			p = app.StripEscapes(p)
		}
		if o.JSON {
			lines.Add(p)
			return
		}
		w.Write(p)
	}
	emit(app.LastLines(b, o.Last))
	if !o.Follow {
		return nil
	}
	return o.App.FollowOutput(ctx, rec.ID, int64(len(b)), emit, func() { w.Flush() })
}
