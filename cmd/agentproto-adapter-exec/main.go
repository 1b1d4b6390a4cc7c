// Command agentproto-adapter-exec is the exec reference adapter.
package main

import (
	"github.com/agentproto/agentproto/plugins/adapters/execadapter"
	"github.com/agentproto/agentproto/plugins/sdk"
)

func main() { sdk.Serve(execadapter.Adapter{}) }
