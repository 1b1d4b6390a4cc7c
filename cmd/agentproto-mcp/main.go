// Command agentproto-mcp is agentproto's MCP server. git agentproto mcp
// runs it in place of itself, so that the CLI, whose every command pays
// its start-up, does not link the MCP SDK. It is installed beside
// git-agentproto.
//
//	agentproto-mcp [--repo DIR] [--role supervisor|executor] [--agent ID] [--server-version V]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/mcp"
	"github.com/agentproto/agentproto/sandbox"
)

func main() {
	// The server opens pull requests with the user's token and starts
	// the daemon with the profiles' keys: no other process of this user
	// reads them from /proc.
	sandbox.Undumpable()
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	err := serve(args, stderr)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "agentproto: %s\n", err)
	return int(fault.KindOf(err))
}

func serve(args []string, stderr io.Writer) error {
	var opts mcp.Options
	fs := flag.NewFlagSet("agentproto-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.Dir, "repo", "", "serve the repository holding this directory")
	fs.StringVar(&opts.Role, "role", mcp.RoleSupervisor, "supervisor or executor")
	fs.StringVar(&opts.Agent, "agent", "", "the executor's peer id")
	fs.StringVar(&opts.Version, "server-version", buildVersion(), "the version the server reports")
	if err := fs.Parse(args); err != nil {
		return fault.Invalidf("%v (git agentproto mcp --help says how to run the server)", err)
	}
	if fs.NArg() > 0 {
		return fault.Invalidf("unexpected argument %q (git agentproto mcp --help says how to run the server)", fs.Arg(0))
	}
	cli, err := app.CLIProgram()
	if err != nil {
		return err
	}
	opts.Serve = []string{cli, "serve"}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcp.Run(ctx, opts)
}

// buildVersion is the module's version when go install built this
// program; git agentproto mcp passes its own.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
