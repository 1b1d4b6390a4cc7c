// Command git-agentproto is the agentproto CLI, run as `git agentproto`.
package main

import (
	"os"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/cmd/root"
)

func main() { os.Exit(root.Main(os.Args[1:], cmdutil.System())) }
