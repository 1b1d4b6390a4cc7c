// Command agentproto-adapter-acp runs any Agent Client Protocol agent
// (Gemini CLI, claude-code-acp, codex-acp...) as an agentproto executor.
package main

import (
	"github.com/agentproto/agentproto/plugins/adapters/acp"
	"github.com/agentproto/agentproto/plugins/sdk"

	// An adapter is a short-lived program: its heap is mapped in at once.
	_ "github.com/agentproto/agentproto/internal/prefault"
)

func main() { sdk.Serve(acp.Adapter{}) }
