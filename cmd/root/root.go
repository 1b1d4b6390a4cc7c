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
	return newRoot(f, parts)
}

// newRoot is the root command with the commands of ps under it.
func newRoot(f *cmdutil.Factory, ps []part) *cobra.Command {
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
	for _, p := range ps {
		cmd.AddCommand(p.build(f)...)
	}
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
	cmd := newRoot(f, partsFor(args))
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
