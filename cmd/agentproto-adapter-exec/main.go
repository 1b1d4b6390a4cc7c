// Command agentproto-adapter-exec is the exec reference adapter.
package main

import (
	"github.com/agentproto/agentproto/plugins/adapters/execadapter"
	"github.com/agentproto/agentproto/plugins/sdk"

	// An adapter is a short-lived program: its heap is mapped in at once.
	_ "github.com/agentproto/agentproto/internal/prefault"
)

func main() { sdk.Serve(execadapter.Adapter{}) }
