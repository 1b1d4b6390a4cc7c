// Command agentproto-sandbox runs a program confined by the kernel and
// holds its process tree (see package sandbox). The sessions daemon
// starts every adapter through it.
package main

import (
	"os"

	"github.com/agentproto/agentproto/sandbox"
)

func main() { os.Exit(sandbox.Main(os.Args[1:])) }
