// Package hookscmd wires `hooks install`, `hooks uninstall` and the hidden
// `hooks run` that installed blocks call.
package hookscmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/hooks"
	"github.com/agentproto/agentproto/internal/fault"
)

// inPrePushEnv guards against recursion: the ledger push made from inside
// a pre-push hook must not run the hook's own push again.
const inPrePushEnv = "AGENTPROTO_IN_PRE_PUSH"

// allowUnverifiedEnv lets one push of an unverified wt/* branch through.
const allowUnverifiedEnv = "AGENTPROTO_PUSH_UNVERIFIED"

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
		fn          func(f *cmdutil.Factory, hook string) error
	}{
		{"install", "Add agentproto's block to a git hook (default pre-push)", install},
		{"uninstall", "Remove agentproto's block from a git hook, keeping the rest", uninstall},
	} {
		verb := verb
		var hook string
		c := &cobra.Command{
			Use:   verb.name + " [--hook NAME]",
			Short: verb.short,
			Args:  cmdutil.NoArgs,
			RunE:  func(cmd *cobra.Command, args []string) error { return verb.fn(f, hook) },
		}
		c.Flags().StringVar(&hook, "hook", hooks.HookPrePush, "hook name")
		cmd.AddCommand(c)
	}
	cmd.AddCommand(newCmdRun(f))
	return cmd
}

func install(f *cmdutil.Factory, hook string) error {
	repo, err := f.Repo()
	if err != nil {
		return err
	}
	path, changed, err := hooks.Install(repo, hook)
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(f.IO.Out, "installed agentproto's %s block in %s\n", hook, path)
	} else {
		fmt.Fprintf(f.IO.Out, "%s already has agentproto's block\n", path)
	}
	return nil
}

func uninstall(f *cmdutil.Factory, hook string) error {
	repo, err := f.Repo()
	if err != nil {
		return err
	}
	path, changed, err := hooks.Uninstall(repo, hook)
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(f.IO.Out, "removed agentproto's %s block from %s\n", hook, path)
	} else {
		fmt.Fprintf(f.IO.Out, "%s has no agentproto block\n", path)
	}
	return nil
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
	checks := []hooks.PrePushCheck{
		{Name: "ledger-verify", Run: func(p *hooks.PrePush) error {
			rep, err := gitstore.Open(repo, gitstore.Options{}).Verify()
			if err != nil {
				return err
			}
			for _, fd := range rep.Findings {
				fmt.Fprintf(p.Out, "agentproto: %s: %s %s\n", fd.Code, fd.Ref, fd.Message)
			}
			if !rep.OK() {
				return fmt.Errorf("the ledger has %d findings (git agentproto ledger verify); push refused", len(rep.Findings))
			}
			return nil
		}},
	}
	checks = append(checks, wtVerifiedCheck(repo))
	if err := hooks.RunPrePush(p); err != nil {
		return err
	}
	for _, c := range checks {
		if err := c.Run(p); err != nil {
			return fmt.Errorf("pre-push %s: %w", c.Name, err)
		}
	}
	return pushLedger(f, p)
}

// pushLedger sends this clone's ledger ref along with the user's push when
// the config asks for it.
func pushLedger(f *cmdutil.Factory, p *hooks.PrePush) error {
	if os.Getenv(inPrePushEnv) != "" {
		return nil
	}
	cfg, _, err := f.Config()
	if err != nil {
		return err
	}
	if !cfg.Sync.PushOnPrePush {
		return nil
	}
	ref, err := gitstore.Open(p.Repo, gitstore.Options{}).WriterRef()
	if err != nil || ref == "" {
		return err
	}
	for _, r := range p.Refs {
		if r.RemoteRef == ref {
			return nil // the user is pushing it already
		}
	}
	cmd := p.Repo.Command("push", "--no-verify", "--quiet", p.Remote, ref+":"+ref)
	cmd.Env = append(cmd.Env, inPrePushEnv+"=1")
	cmd.Stdout, cmd.Stderr = p.Out, p.Out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pushing the ledger ref %s to %s failed: %v", ref, p.Remote, err)
	}
	fmt.Fprintf(p.Out, "agentproto: pushed %s to %s\n", ref, p.Remote)
	return nil
}
