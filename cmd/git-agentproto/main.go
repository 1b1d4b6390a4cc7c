// Command git-agentproto is the agentproto CLI, run as `git agentproto`.
package main

import (
	"os"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/cmd/root"
	"github.com/agentproto/agentproto/internal/gcfloor"
	// A command is a short-lived program: its heap is mapped in at once.
	_ "github.com/agentproto/agentproto/internal/prefault"
	"github.com/agentproto/agentproto/sandbox"
)

func main() {
	// Most commands end before they have made 32 MB of garbage: they do
	// not collect it (internal/gcfloor).
	gcfloor.Hold(gcfloor.DefaultFloor)
	// Every command may hold the user's tokens (GH_TOKEN, the profiles'
	// keys): no other process of this user reads them from /proc.
	sandbox.Undumpable()
	os.Exit(root.Main(os.Args[1:], cmdutil.System()))
}
