// Command agentproto-sessions is the sessions daemon and the only program
// of agentproto that links the plugin transport (go-plugin, gRPC,
// protobuf): it launches adapters, git-agentproto does not, and so starts
// in less time. It is installed beside git-agentproto.
//
//	agentproto-sessions serve [--guard]  the daemon of the repository here (git agentproto serve runs it)
//	agentproto-sessions probe            run an adapter once for the CLI (package probe)
package main

import (
	"fmt"
	"os"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/probe"
	"github.com/agentproto/agentproto/sandbox"
)

func main() {
	// The daemon is the parent of every agent and may hold the profiles'
	// keys: no other process of this user reads them from /proc.
	sandbox.Undumpable()
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	var err error
	switch {
	case len(args) > 0 && args[0] == "serve":
		err = serve(args[1:])
	case len(args) == 1 && args[0] == probe.Verb:
		err = host.ServeProbe(os.Stdin, os.Stdout)
	default:
		err = fault.Invalidf("agentproto-sessions runs the sessions daemon (serve) and adapter probes for git-agentproto; for anything else run git agentproto")
	}
	if err == nil {
		return 0
	}
	fmt.Fprintf(os.Stderr, "agentproto: %s\n", err)
	return int(fault.KindOf(err))
}
