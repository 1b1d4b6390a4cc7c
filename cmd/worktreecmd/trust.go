package worktreecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// TrustOptions are the inputs of `trust`.
type TrustOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Base   string
	Show   bool
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdTrust returns `trust`.
func NewCmdTrust(f *cmdutil.Factory) *cobra.Command { return newCmdTrust(f, nil) }

func newCmdTrust(f *cmdutil.Factory, runF func(*TrustOptions) error) *cobra.Command {
	o := &TrustOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "trust [--base REV] [--show] [--json]",
		Short: "Show the worktree hooks committed at the base revision and trust them on this machine",
		Long: `Worktree hooks (setup, copy, env, teardown in agentproto.toml) are read as
committed at the base revision and run only once their content is trusted on
this machine. The content is the commands and what they run: every file or
directory of the base tree a command or env value names (and the Makefile of
make, the package.json of npm), by its object id at the base. trust prints
them and records their hash; any later change to the hooks or to a script
they run needs trust again, and the refusal names what changed. --show prints
without trusting.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, trustRun) },
	}
	cmd.Flags().StringVar(&o.Base, "base", "", "base revision (default: [worktree] base, origin/HEAD, HEAD)")
	cmd.Flags().BoolVar(&o.Show, "show", false, "only show the hooks and whether they are trusted")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print as JSON")
	return cmd
}

func trustRun(o *TrustOptions) error {
	t, err := o.App.TrustHooks(context.Background(), o.Base, o.Show)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, map[string]any{"base": t.Base, "commit": t.Commit, "hooks": t.Hooks, "digest": t.Hooks.Digest(),
			"trusted": t.Trusted, "recorded": t.Recorded})
	}
	if t.Hooks.Empty() {
		fmt.Fprintf(o.IO.Out, "%s (%.12s) has no worktree hooks; nothing to trust\n", t.Base, t.Commit)
		return nil
	}
	fmt.Fprintf(o.IO.Out, "worktree hooks of %s (%.12s):\n%s", t.Base, t.Commit, t.Hooks.Describe())
	switch {
	case t.Recorded:
		fmt.Fprintf(o.IO.Out, "trusted on this machine (sha256 %.16s)\n", t.Hooks.Digest())
	case t.Trusted:
		fmt.Fprintln(o.IO.Out, "already trusted on this machine")
	default:
		fmt.Fprintln(o.IO.Out, "not trusted (run without --show to trust)")
	}
	return nil
}
