// Package mcpcmd wires `mcp` (the MCP server over stdio) and `mcp config`.
package mcpcmd

import (
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// roleSupervisor is the server's default role (package mcp checks the
// role; this command does not link it: the server is its own program,
// agentproto-mcp, run in place of this one).
const roleSupervisor = "supervisor"

// Options are the inputs of `mcp`.
type Options struct {
	Dir, Role, Agent string
	// Exec replaces this process with the server's program.
	Exec func(path string, argv []string) error
}

// NewCmdMCP returns the `mcp` command.
func NewCmdMCP(f *cmdutil.Factory) *cobra.Command {
	opts := &Options{Exec: func(path string, argv []string) error { return syscall.Exec(path, argv, os.Environ()) }}
	cmd := &cobra.Command{
		Use:   "mcp [--repo DIR] [--role supervisor|executor] [--agent ID]",
		Short: "Serve agentproto's tools to an MCP client (Claude Code, Codex, Cursor) over stdio",
		Long: `Run a Model Context Protocol server on stdin and stdout, one process per
client, in the repository it is started in (--repo to choose). Tools are
typed: each takes a JSON object that rejects unknown arguments and returns
the same document, with the same schema, as the matching command's --json.
Errors are tool errors carrying the exit code and one line. Sessions belong
to the sessions daemon, so they outlive the connection.

--role executor serves only what an executor may use on itself: its frozen
brief, its own worktree's changes, evidence and its quota guard (as --agent).

Register it with: git agentproto mcp config --client claude|codex|cursor

The server is the program agentproto-mcp, installed beside git-agentproto;
mcp runs it in place of itself.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return mcpRun(f, opts) },
	}
	cmd.Flags().StringVar(&opts.Dir, "repo", "", "serve the repository holding this `DIR` (default: the current directory)")
	cmd.Flags().StringVar(&opts.Role, "role", roleSupervisor, "supervisor or executor")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "the executor's peer `ID` (its quota and evidence)")
	cmd.AddCommand(newCmdConfig(f))
	return cmd
}

func mcpRun(f *cmdutil.Factory, o *Options) error {
	bin, err := app.MCPProgram()
	if err != nil {
		return err
	}
	argv := []string{bin, "--role", o.Role, "--server-version", f.Version}
	if o.Dir != "" {
		argv = append(argv, "--repo", o.Dir)
	}
	if o.Agent != "" {
		argv = append(argv, "--agent", o.Agent)
	}
	return o.Exec(bin, argv)
}

func newCmdConfig(f *cmdutil.Factory) *cobra.Command {
	var client string
	var write bool
	cmd := &cobra.Command{
		Use:   "config --client claude|codex|cursor [--write]",
		Short: "Print the snippet that registers the server with a client (--write: add it to .mcp.json)",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.App().ConfigureMCPClient(cmd.Context(), client, write)
			switch {
			case err != nil:
				return err
			case !write:
				fmt.Fprint(f.IO.Out, c.Snippet)
			case !c.Changed:
				fmt.Fprintf(f.IO.Out, "%s already registers %s; nothing written\n", c.Path, app.MCPServerName)
			default:
				fmt.Fprintf(f.IO.Out, "added %s to %s\n", app.MCPServerName, c.Path)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&client, "client", "", "claude, codex or cursor")
	cmd.Flags().BoolVar(&write, "write", false, "add the server to the repository's .mcp.json (claude)")
	cmd.MarkFlagRequired("client")
	return cmd
}
