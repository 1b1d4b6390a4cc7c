package sessionscmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// StartOptions are the inputs of `sessions start`.
type StartOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Adapter    string
	Model      string
	Worktree   string
	Base       string // of a --worktree made here
	Dir        string
	Prompt     string
	PromptFile string
	Label      string
	Profile    string
	NoPing     bool
	Options    map[string]string // --option K=V, the user's own
	JSON       bool
	Export     *cmdutil.Exporter
}

func newCmdStart(f *cmdutil.Factory, runF func(*StartOptions) error) *cobra.Command {
	opts := &StartOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "start (--adapter NAME [--model M] | --profile NAME) (--worktree SLUG [--base REV] | --dir D) (--prompt TEXT | --prompt-file F) [--option K=V...] [--label L] [--no-ping] [--json]",
		Short: "Start a session and print its id",
		Long: `Start a session and print its id. The spawn protocol: the session starts idle,
answers a liveness ping ("Reply with exactly READY"), and only then receives
the prompt; a session that fails the ping never sees it (--no-ping skips the
check). A profile names adapter, model and auth; the key variable it names is
passed to the adapter from your environment and never stored. Adapter options
from a committed agentproto.toml run only once trusted on this machine
(plugin trust NAME, profile trust NAME); --option K=V options are yours and
win over them. --worktree SLUG makes the worktree first when it does not
exist, as worktree new does (from --base or the default base; its setup
hooks run, once trusted).`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Profile != "" && opts.Adapter != "" {
				return fault.Invalidf("--profile names the adapter; do not give --adapter too")
			}
			if opts.Profile == "" && opts.Adapter == "" {
				return fault.Invalidf("--adapter or --profile is required")
			}
			return cmdutil.RunOr(opts, runF, startRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Adapter, "adapter", "", "adapter name")
	fl.StringVar(&opts.Model, "model", "", "model id")
	fl.StringVar(&opts.Worktree, "worktree", "", "run in this agentproto worktree, made first when missing (as worktree new)")
	fl.StringVar(&opts.Base, "base", "", "base revision of a worktree made by --worktree (default: [worktree] base, origin/HEAD, HEAD)")
	fl.StringVar(&opts.Dir, "dir", "", "run in this directory")
	fl.StringVar(&opts.Prompt, "prompt", "", "first prompt")
	fl.StringVar(&opts.PromptFile, "prompt-file", "", "read the first prompt from a file")
	fl.StringVar(&opts.Label, "label", "", "a label for people")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the session as JSON")
	fl.StringVar(&opts.Profile, "profile", "", "executor profile ([profiles.NAME])")
	fl.BoolVar(&opts.NoPing, "no-ping", false, "skip the liveness ping")
	fl.StringToStringVar(&opts.Options, "option", nil, "an adapter option K=V of your own, over the configured ones (repeatable)")
	return cmd
}

func startRun(o *StartOptions) error {
	if (o.Worktree == "") == (o.Dir == "") {
		return fault.Invalidf("give exactly one of --worktree and --dir")
	}
	text, err := readText(o.Prompt, o.PromptFile, "prompt")
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return fault.Invalidf("a session starts with a prompt: --prompt or --prompt-file")
	}
	if o.Base != "" && o.Worktree == "" {
		return fault.Invalidf("--base is the base of a new --worktree; it needs --worktree")
	}
	rec, err := o.App.StartSession(context.Background(), app.StartOptions{Profile: o.Profile, Adapter: o.Adapter, Model: o.Model,
		UserOptions: o.Options, Worktree: o.Worktree, Base: o.Base, Dir: o.Dir, Prompt: text, Label: o.Label, NoPing: o.NoPing,
		By: "sessions start"})
	if err != nil {
		// A session that failed while starting still exists: --json gives
		// its record (state, failure, stderr tail), and the error names it
		// either way.
		if rec != nil && o.JSON {
			o.Export.Write(o.IO.Out, rec)
		}
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rec)
	}
	fmt.Fprintln(o.IO.Out, rec.ID)
	return nil
}
