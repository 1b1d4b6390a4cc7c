// Command agentproto-adapter-scripted is the scripted reference adapter: a
// deterministic fake agent for tests and the demo.
package main

import (
	"github.com/agentproto/agentproto/plugins/adapters/scripted"
	"github.com/agentproto/agentproto/plugins/sdk"

	// An adapter is a short-lived program: its heap is mapped in at once.
	_ "github.com/agentproto/agentproto/internal/prefault"
)

func main() { sdk.Serve(scripted.Adapter{}) }
