package sessionscmd

import (
	"bufio"
	"bytes"
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
			return runOr(opts, runF, outputRun)
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
	lines := &lineStream{session: rec.ID, write: func(v any) error { return o.Export.Write(w, v) }}
	if o.JSON {
		defer lines.flush()
	}
	emit := func(p []byte) {
		if o.Clean {
			p = app.StripEscapes(p)
		}
		if o.JSON {
			lines.add(p)
			return
		}
		w.Write(p)
	}
	emit(lastLines(b, o.Last))
	if !o.Follow {
		return nil
	}
	return o.App.FollowOutput(ctx, rec.ID, int64(len(b)), emit, func() { w.Flush() })
}

// lastLines is the last n lines of b, all of it when n is 0.
func lastLines(b []byte, n int) []byte {
	if n <= 0 {
		return b
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if k := len(lines); k > 0 && len(lines[k-1]) == 0 {
		lines = lines[:k-1]
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return bytes.Join(lines, nil)
}
