package sessionscmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// PromptOptions are the inputs of `sessions prompt`.
type PromptOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	ID        string
	Text      string
	File      string
	Interrupt bool
	JSON      bool
	Export    *cmdutil.Exporter
}

func newCmdPrompt(f *cmdutil.Factory, runF func(*PromptOptions) error) *cobra.Command {
	opts := &PromptOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "prompt ID (--text T | --file F) [--interrupt] [--json]",
		Short: "Send a session another turn, or interrupt its current one",
		Args:  cmdutil.ExactArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return cmdutil.RunOr(opts, runF, promptRun)
		},
	}
	cmd.Flags().StringVar(&opts.Text, "text", "", "prompt text")
	cmd.Flags().StringVar(&opts.File, "file", "", "read the prompt from a file")
	cmd.Flags().BoolVar(&opts.Interrupt, "interrupt", false, "interrupt the current turn first")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, `print what was sent as JSON: {"id","sent","interrupt"}`)
	return cmd
}

func promptRun(o *PromptOptions) error {
	if err := sessions.ValidateID(o.ID); err != nil {
		return err
	}
	text, err := readText(o.Text, o.File, "text")
	if err != nil {
		return err
	}
	if text == "" && !o.Interrupt {
		return fault.Invalidf("give --text or --file (or --interrupt alone)")
	}
	if err := o.App.PromptSession(context.Background(), o.ID, text, o.Interrupt); err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, map[string]any{"id": o.ID, "sent": true, "interrupt": o.Interrupt})
	}
	fmt.Fprintf(o.IO.Out, "sent to %s\n", o.ID)
	return nil
}

// KillOptions are the inputs of `sessions kill`.
type KillOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	ID     string
	JSON   bool
	Export *cmdutil.Exporter
}

func newCmdKill(f *cmdutil.Factory, runF func(*KillOptions) error) *cobra.Command {
	opts := &KillOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "kill ID [--json]",
		Short: "End a session and every process it started",
		Args:  cmdutil.ExactArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return cmdutil.RunOr(opts, runF, killRun)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the session's record after the kill as JSON")
	return cmd
}

func killRun(o *KillOptions) error {
	rec, err := o.App.KillSession(context.Background(), o.ID)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rec)
	}
	printRecord(o.IO.Out, rec)
	return nil
}

// GCOptions are the inputs of `sessions gc`.
type GCOptions struct {
	IO       *cmdutil.IOStreams
	Sessions func() (*sessions.Client, error)

	Apply  bool
	JSON   bool
	Export *cmdutil.Exporter
}

func newCmdGC(f *cmdutil.Factory, runF func(*GCOptions) error) *cobra.Command {
	opts := &GCOptions{IO: f.IO, Sessions: f.Sessions}
	cmd := &cobra.Command{
		Use:   "gc [--apply] [--json]",
		Short: "Clean settled and dead sessions; report idle running ones as orphans",
		Args:  cmdutil.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(opts, runF, gcRun) },
	}
	cmd.Flags().BoolVar(&opts.Apply, "apply", false, "clean them")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print as JSON")
	return cmd
}

func gcRun(o *GCOptions) error {
	c, err := o.Sessions()
	if err != nil {
		return err
	}
	running, err := c.Probe(context.Background())
	if err != nil {
		return err
	}
	if !running {
		// Nothing is live: --json still gets a document, the empty list.
		if o.JSON {
			return o.Export.Write(o.IO.Out, []*sessions.Record{})
		}
		fmt.Fprintln(o.IO.Out, "no sessions daemon runs; nothing is live")
		return nil
	}
	recs, err := c.GC(context.Background(), o.Apply)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, recs)
	}
	for _, r := range recs {
		fmt.Fprintf(o.IO.Out, "%-28s %s %s %s\n", gcVerdict(r), r.ID, r.State, r.Dir)
	}
	if !o.Apply {
		fmt.Fprintln(o.IO.Out, "(dry run: use --apply)")
	}
	return nil
}

// gcVerdict says what gc did or would do with a session.
func gcVerdict(r *sessions.Record) string {
	switch {
	case r.State == sessions.StateCleaned:
		return "cleaned"
	case r.State == sessions.StateSettled || sessions.Terminal(r.State):
		return "would clean"
	case time.Since(r.LastActivity) > 15*time.Minute:
		return "orphan? (running, idle " + time.Since(r.LastActivity).Round(time.Minute).String() + ")"
	}
	return "keep"
}
