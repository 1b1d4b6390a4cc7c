// Package root assembles the git-agentproto command tree and maps errors to
// the project-wide exit codes.
package root

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/cmd/configcmd"
	"github.com/agentproto/agentproto/cmd/forkcmd"
	"github.com/agentproto/agentproto/cmd/hookscmd"
	"github.com/agentproto/agentproto/cmd/initcmd"
	"github.com/agentproto/agentproto/cmd/ledger"
	"github.com/agentproto/agentproto/cmd/lessoncmd"
	"github.com/agentproto/agentproto/cmd/mcpcmd"
	"github.com/agentproto/agentproto/cmd/peercmd"
	"github.com/agentproto/agentproto/cmd/pipelinecmd"
	"github.com/agentproto/agentproto/cmd/plan"
	"github.com/agentproto/agentproto/cmd/plugincmd"
	"github.com/agentproto/agentproto/cmd/policycmd"
	"github.com/agentproto/agentproto/cmd/profilecmd"
	"github.com/agentproto/agentproto/cmd/scoutcmd"
	"github.com/agentproto/agentproto/cmd/sessionscmd"
	"github.com/agentproto/agentproto/cmd/spendcmd"
	"github.com/agentproto/agentproto/cmd/synccmd"
	"github.com/agentproto/agentproto/cmd/watchcmd"
	"github.com/agentproto/agentproto/cmd/webcmd"
	"github.com/agentproto/agentproto/cmd/worktreecmd"
	"github.com/agentproto/agentproto/internal/fault"
)

// version is set at build time with -ldflags "-X .../cmd/root.version=...".
var version = ""

// Version returns the version of this build.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// NewCmdRoot returns the whole command tree.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "git-agentproto <command>",
		Short: "Run many AI coding agents on one repository without losing control",
		Long: `git agentproto keeps a supervisor in control of many executor agents working on
one repository: plans with disjoint file perimeters, one worktree and session
per work package, verification on disk, single-writer consolidation, review and
a pull request. Its state is an append-only ledger of commits on
refs/agentproto/..., so it syncs with plain git and needs no server.

Exit codes: 0 ok, 1 error, 2 invalid usage or input, 3 conflict,
4 timeout, 5 refused by policy or authority.`,
		Version:       f.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetGlobalNormalizationFunc(cmdutil.NormalizeFlagName)
	cmd.SetVersionTemplate("git-agentproto version {{.Version}}\n")
	cmd.SetIn(f.IO.In)
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c, err: err}
	})
	cmd.AddCommand(initcmd.NewCmdInit(f, nil))
	cmd.AddCommand(configcmd.NewCmdConfig(f))
	cmd.AddCommand(ledger.NewCmdLedger(f))
	cmd.AddCommand(synccmd.NewCmdSync(f, nil))
	cmd.AddCommand(plan.NewCmdPlan(f))
	cmd.AddCommand(worktreecmd.NewCmdWorktree(f))
	cmd.AddCommand(worktreecmd.NewCmdTrust(f))
	cmd.AddCommand(hookscmd.NewCmdHooks(f))
	cmd.AddCommand(plugincmd.NewCmdPlugin(f))
	cmd.AddCommand(sessionscmd.NewCmdSessions(f))
	cmd.AddCommand(sessionscmd.NewCmdServe(f))
	cmd.AddCommand(pipelinecmd.Commands(f)...)
	cmd.AddCommand(peercmd.Commands(f)...)
	cmd.AddCommand(forkcmd.NewCmdFork(f))
	cmd.AddCommand(profilecmd.NewCmdProfile(f))
	cmd.AddCommand(lessoncmd.NewCmdLesson(f))
	cmd.AddCommand(policycmd.NewCmdPolicy(f))
	cmd.AddCommand(watchcmd.NewCmdWatch(f))
	cmd.AddCommand(webcmd.NewCmdWeb(f, nil))
	cmd.AddCommand(scoutcmd.NewCmdScout(f))
	cmd.AddCommand(mcpcmd.NewCmdMCP(f))
	cmd.AddCommand(spendcmd.NewCmdSpend(f))
	cmd.AddCommand(newCmdCompletion(cmd))
	refuseUnknownSubcommands(cmd)
	addDynamicCompletion(cmd, f)
	return cmd
}

// usageError is a flag or argument mistake: exit 2 with a pointer to help.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// Main runs the command line and returns the process exit code.
func Main(args []string, io *cmdutil.IOStreams) int {
	f := cmdutil.New(io, Version())
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err == nil {
		return 0
	}
	var silent *cmdutil.SilentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(io.ErrOut, "agentproto: %s\n", err)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(io.ErrOut, "Run '%s --help' for usage.\n", ue.cmd.CommandPath())
		return int(fault.Invalid)
	}
	if strings.HasPrefix(err.Error(), "unknown command") {
		fmt.Fprintf(io.ErrOut, "Run 'git agentproto --help' for usage.\n")
		return int(fault.Invalid)
	}
	return int(fault.KindOf(err))
}
