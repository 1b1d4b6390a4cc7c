package worktreecmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/worktree"
)

// NewCmdTrust returns `trust`.
func NewCmdTrust(f *cmdutil.Factory) *cobra.Command {
	var base string
	var show, asJSON bool
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
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := f.Repo()
			if err != nil {
				return err
			}
			cfg, _, err := f.Config()
			if err != nil {
				return err
			}
			name, commit, err := worktree.ResolveBase(repo, base, cfg.Worktree.Base)
			if err != nil {
				return err
			}
			hooks, err := worktree.HooksAt(repo, commit)
			if err != nil {
				return err
			}
			trusted, err := worktree.Trusted(repo, hooks)
			if err != nil {
				return err
			}
			added := false
			if !show && !trusted {
				if added, err = worktree.Trust(repo, hooks); err != nil {
					return err
				}
				trusted = true
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"base": name, "commit": commit, "hooks": hooks, "digest": hooks.Digest(), "trusted": trusted, "recorded": added})
			}
			if hooks.Empty() {
				fmt.Fprintf(f.IO.Out, "%s (%.12s) has no worktree hooks; nothing to trust\n", name, commit)
				return nil
			}
			fmt.Fprintf(f.IO.Out, "worktree hooks of %s (%.12s):\n%s", name, commit, hooks.Describe())
			switch {
			case added:
				fmt.Fprintf(f.IO.Out, "trusted on this machine (sha256 %.16s)\n", hooks.Digest())
			case trusted:
				fmt.Fprintln(f.IO.Out, "already trusted on this machine")
			default:
				fmt.Fprintln(f.IO.Out, "not trusted (run without --show to trust)")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "base revision (default: [worktree] base, origin/HEAD, HEAD)")
	cmd.Flags().BoolVar(&show, "show", false, "only show the hooks and whether they are trusted")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}
