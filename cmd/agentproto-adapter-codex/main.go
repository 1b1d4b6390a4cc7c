// Command agentproto-adapter-codex is the codex reference adapter.
package main

import (
	"github.com/agentproto/agentproto/plugins/adapters/codex"
	"github.com/agentproto/agentproto/plugins/sdk"

	// An adapter is a short-lived program: its heap is mapped in at once.
	_ "github.com/agentproto/agentproto/internal/prefault"
)

func main() { sdk.Serve(codex.Adapter{}) }
