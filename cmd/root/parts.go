package root

import (
	"slices"
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
)

// A part of the command tree: the names of its top-level commands and
// how to build them. A command line that names one is run on a tree of
// that part alone: building the whole tree (every command's flags, help
// and completion) is about 360 KB of allocation, a few milliseconds of
// every command's start in a new process (perf: NewCmdRoot was 9 % of a
// --version). TestPartsNameTheirCommands keeps the names true.
type part struct {
	names []string
	build func(f *cmdutil.Factory) []*cobra.Command
}

func one(build func(f *cmdutil.Factory) *cobra.Command) func(*cmdutil.Factory) []*cobra.Command {
	return func(f *cmdutil.Factory) []*cobra.Command { return []*cobra.Command{build(f)} }
}

var parts = []part{
	{[]string{"init"}, one(func(f *cmdutil.Factory) *cobra.Command { return initcmd.NewCmdInit(f, nil) })},
	{[]string{"config"}, one(configcmd.NewCmdConfig)},
	{[]string{"ledger"}, one(ledger.NewCmdLedger)},
	{[]string{"sync"}, one(func(f *cmdutil.Factory) *cobra.Command { return synccmd.NewCmdSync(f, nil) })},
	{[]string{"plan"}, one(plan.NewCmdPlan)},
	{[]string{"worktree"}, one(worktreecmd.NewCmdWorktree)},
	{[]string{"trust"}, one(worktreecmd.NewCmdTrust)},
	{[]string{"hooks"}, one(hookscmd.NewCmdHooks)},
	{[]string{"plugin"}, one(plugincmd.NewCmdPlugin)},
	{[]string{"sessions"}, one(sessionscmd.NewCmdSessions)},
	{[]string{"serve"}, one(sessionscmd.NewCmdServe)},
	{[]string{"dispatch", "verify", "checkpoint", "consolidate", "review", "e2e", "pr", "run", "waiting"}, pipelinecmd.Commands},
	{[]string{"peer", "goal", "todo", "evidence", "supervisor"}, peercmd.Commands},
	{[]string{"fork"}, one(forkcmd.NewCmdFork)},
	{[]string{"profile"}, one(profilecmd.NewCmdProfile)},
	{[]string{"lesson"}, one(lessoncmd.NewCmdLesson)},
	{[]string{"policy"}, one(policycmd.NewCmdPolicy)},
	{[]string{"watch"}, one(watchcmd.NewCmdWatch)},
	{[]string{"web"}, one(func(f *cmdutil.Factory) *cobra.Command { return webcmd.NewCmdWeb(f, nil) })},
	{[]string{"scout"}, one(scoutcmd.NewCmdScout)},
	{[]string{"mcp"}, one(mcpcmd.NewCmdMCP)},
	{[]string{"spend"}, one(spendcmd.NewCmdSpend)},
}

// partsFor is the part a command line names first; none for --version
// alone; else every part: for no command, another flag first (--help),
// help, completion (which lists every command), or a word no part names
// (cobra's suggestions need them all).
func partsFor(args []string) []part {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		return nil
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return parts
	}
	for _, p := range parts {
		if slices.Contains(p.names, args[0]) {
			return []part{p}
		}
	}
	return parts
}
