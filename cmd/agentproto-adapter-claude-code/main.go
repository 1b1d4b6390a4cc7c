// Command agentproto-adapter-claude-code is the claude-code reference adapter.
package main

import (
	"github.com/agentproto/agentproto/plugins/adapters/claudecode"
	"github.com/agentproto/agentproto/plugins/sdk"

	// An adapter is a short-lived program: its heap is mapped in at once.
	_ "github.com/agentproto/agentproto/internal/prefault"
)

func main() { sdk.Serve(claudecode.Adapter{}) }
