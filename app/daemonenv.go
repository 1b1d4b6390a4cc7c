package app

import (
	"github.com/agentproto/agentproto/internal/companion"
	"github.com/agentproto/agentproto/internal/config"
)

// ProfileKeys names the profiles' key variables: the daemon is started
// with them, as a dispatch it runs for a policy starts sessions of those
// profiles.
func ProfileKeys(cfg config.Config) []string {
	var out []string
	for _, p := range cfg.Profiles {
		if p.KeyEnv != "" {
			out = append(out, p.KeyEnv)
		}
	}
	return out
}

// DaemonProgram is the sessions daemon's binary, agentproto-sessions,
// installed beside git-agentproto: the one program that links the plugin
// transport, so that the CLI starts without it.
func DaemonProgram() (string, error) {
	return companion.Find(companion.Sessions)
}

// MCPProgram is the MCP server's binary, agentproto-mcp, installed beside
// git-agentproto, which runs it in place of itself for `mcp`: the CLI
// starts without the MCP SDK.
func MCPProgram() (string, error) {
	return companion.Find(companion.MCP)
}

// CLIProgram is git-agentproto, as the programs installed beside it find
// it: the MCP server starts the sessions daemon through its serve.
func CLIProgram() (string, error) {
	return companion.Find(companion.CLI)
}
