// Package hookscmd wires `hooks install`, `hooks uninstall` and the hidden
// `hooks run` that installed blocks call.
package hookscmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/hooks"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/pipeline"
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
		fn          func(*gitrepo.Repo, string) (string, bool, error)
		did, same   string // %[1]s is the hook, %[2]s its file
	}{
		{"install", "Add agentproto's block to a git hook (default pre-push)", hooks.Install,
			"installed agentproto's %[1]s block in %[2]s\n", "%[2]s already has agentproto's block\n"},
		{"uninstall", "Remove agentproto's block from a git hook, keeping the rest", hooks.Uninstall,
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
				repo, err := f.Repo()
				if err != nil {
					return err
				}
				path, changed, err := verb.fn(repo, hook)
				switch {
				case err != nil:
					return err
				case asJSON:
					return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"hook": hook, "path": path, "changed": changed})
				case changed:
					fmt.Fprintf(f.IO.Out, verb.did, hook, path)
				default:
					fmt.Fprintf(f.IO.Out, verb.same, hook, path)
				}
				return nil
			},
		}
		c.Flags().StringVar(&hook, "hook", hooks.HookPrePush, "hook name")
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
			case hooks.HookPrePush:
				if len(args) != 3 {
					return fault.Invalidf("hooks run pre-push takes REMOTE and URL (got %d arguments)", len(args)-1)
				}
				return runPrePush(f, args[1], args[2])
			}
			return fault.Invalidf("agentproto has no %q hook", args[0])
		},
	}
}

func runPrePush(f *cmdutil.Factory, remote, url string) error {
	repo, err := f.Repo()
	if err != nil {
		return err
	}
	refs, err := hooks.ParsePushedRefs(f.IO.In)
	if err != nil {
		return err
	}
	p := &hooks.PrePush{Repo: repo, Remote: remote, URL: url, Refs: refs, Out: f.IO.ErrOut}
	return p.Run(hooks.PrePushOptions{
		BranchVerified: func(l *gitstore.Ledger, branch, commit string) error {
			return pipeline.CheckBranchCommit(repo, l, branch, commit)
		},
		PushLedger: func() (bool, error) {
			cfg, _, err := f.Config()
			return cfg.Sync.PushOnPrePush, err
		},
	})
}
