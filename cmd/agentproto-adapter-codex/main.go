// Command agentproto-adapter-codex is the codex reference adapter.
package main

import (
	"github.com/agentproto/agentproto/plugins/adapters/codex"
	"github.com/agentproto/agentproto/plugins/sdk"
)

func main() { sdk.Serve(codex.Adapter{}) }
