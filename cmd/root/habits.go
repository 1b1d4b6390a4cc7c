package root

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// refuseUnknownSubcommands gives every command group a RunE: alone it
// prints the group's help, with a word that names no subcommand it is a
// usage error (exit 2) with cobra's suggestions. Without it cobra prints the
// help and exits 0, so a script with `ledger lgo` carries on as if it ran.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasParent() || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.SuggestionsMinimumDistance = 2
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return &usageError{cmd: cmd, err: fault.Invalidf("%s", msg)}
	}
}

// gitHook lets git's own bash completion complete `git agentproto ...`:
// git calls _git_<command> when it is defined, with words holding the whole
// line and __git_cmd_idx the index of "agentproto". It hands cobra the line
// as if git-agentproto had been typed on its own.
const gitHook = `
# git agentproto <TAB>: git's completion calls _git_agentproto.
_git_agentproto()
{
    local __agentproto_words=("git-agentproto" "${words[@]:__git_cmd_idx+1:cword-__git_cmd_idx}")
    local words=("${__agentproto_words[@]}")
    local cword=$((${#words[@]}-1))
    local out directive
    __git-agentproto_get_completion_results
    __git-agentproto_process_completion_results
}
`

func newCmdCompletion(root *cobra.Command) *cobra.Command {
	gen := map[string]func(w io.Writer) error{
		"bash": func(w io.Writer) error {
			if err := root.GenBashCompletionV2(w, true); err != nil {
				return err
			}
			_, err := io.WriteString(w, gitHook)
			return err
		},
		"zsh":        root.GenZshCompletion,
		"fish":       func(w io.Writer) error { return root.GenFishCompletion(w, true) },
		"powershell": root.GenPowerShellCompletionWithDesc,
	}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script (bash's also completes `git agentproto`)",
		Long: `Print a completion script for the shell. For bash, source it from ~/.bashrc or
save it as ~/.local/share/bash-completion/completions/git-agentproto: it
completes both git-agentproto and git agentproto (through git's own completion,
which calls _git_agentproto), including plan names, WP ids, session ids,
worktree slugs and profiles.`,
		Args:      cmdutil.ExactArgs(1, "one shell name"),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			g, ok := gen[args[0]]
			if !ok {
				return fault.Invalidf("no completion for shell %q: bash, zsh, fish or powershell", args[0])
			}
			return g(cmd.OutOrStdout())
		},
	}
}
