// Package hookscmd wires `hooks install`, `hooks uninstall` and the hidden
// `hooks run` that installed blocks call.
package hookscmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// NewCmdHooks returns the `hooks` command.
func NewCmdHooks(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks <command>",
		Short: "Install or remove agentproto's block in git hooks (pre-push)",
		Long: `The pre-push block refuses a push when 'ledger verify' fails or when a work
package's wt/* branch is pushed with a commit its latest passing verify did not
see (the verified HEAD, or its checkpoint) and, with
[sync] push_on_pre_push = true, pushes this clone's ledger ref to the same
remote. The block is added to any existing hook without touching the rest,
and uninstall removes only the block. The hooks directory is git's own
(core.hooksPath is honoured).`,
	}
	for _, verb := range []struct {
		name, short string
		fn          func(*app.Env, context.Context, string) (*app.Hook, error)
		did, same   string // %[1]s is the hook, %[2]s its file
	}{
		{"install", "Add agentproto's block to a git hook (default pre-push)", (*app.Env).InstallHook,
			"installed agentproto's %[1]s block in %[2]s\n", "%[2]s already has agentproto's block\n"},
		{"uninstall", "Remove agentproto's block from a git hook, keeping the rest", (*app.Env).UninstallHook,
			"removed agentproto's %[1]s block from %[2]s\n", "%[2]s has no agentproto block\n"},
	} {
		verb := verb
		var hook string
		var asJSON bool
		c := &cobra.Command{
			Use:   verb.name + " [--hook NAME] [--json]",
			Short: verb.short,
			Args:  cmdutil.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				h, err := verb.fn(f.App(), context.Background(), hook)
				switch {
				case err != nil:
					return err
				case asJSON:
					return cmdutil.ExportJSON(cmd, f.IO.Out, h)
				case h.Changed:
					fmt.Fprintf(f.IO.Out, verb.did, hook, h.Path)
				default:
					fmt.Fprintf(f.IO.Out, verb.same, hook, h.Path)
				}
				return nil
			},
		}
		c.Flags().StringVar(&hook, "hook", app.HookPrePush, "hook name")
		cmdutil.AddJSONFlags(c, &asJSON, `print {"hook","path","changed"} as JSON`)
		cmd.AddCommand(c)
	}
	cmd.AddCommand(newCmdRun(f))
	return cmd
}

func newCmdRun(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "run HOOK [ARGS...]",
		Short:  "Run agentproto's part of a git hook (called by the installed block)",
		Hidden: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 {
				return fault.Invalidf("hooks run needs a hook name")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch args[0] {
			case app.HookPrePush:
				if len(args) != 3 {
					return fault.Invalidf("hooks run pre-push takes REMOTE and URL (got %d arguments)", len(args)-1)
				}
				return f.App().PrePush(context.Background(), args[1], args[2], f.IO.In, f.IO.ErrOut)
			}
			return fault.Invalidf("agentproto has no %q hook", args[0])
		},
	}
}
