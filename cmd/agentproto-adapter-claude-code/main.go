// Command agentproto-adapter-claude-code is the claude-code reference adapter.
package main

import (
	"github.com/agentproto/agentproto/plugins/adapters/claudecode"
	"github.com/agentproto/agentproto/plugins/sdk"
)

func main() { sdk.Serve(claudecode.Adapter{}) }
