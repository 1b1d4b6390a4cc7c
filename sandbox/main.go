package sandbox

import (
	"fmt"
	"os"
)

// confineFlag selects the launcher's inner stage: confine, then exec.
const confineFlag = "--confine"

// Main is the launcher's whole program (agentproto-sandbox):
//
//	agentproto-sandbox POLICY -- PROGRAM [ARGS...]
//
// holds PROGRAM's tree and runs PROGRAM confined to POLICY (JSON, see
// Policy); it exits with PROGRAM's exit code. The launcher writes nothing
// on stdout: the program's own output (an adapter's go-plugin handshake)
// passes through untouched.
func Main(args []string) int {
	inner := len(args) > 0 && args[0] == confineFlag
	if inner {
		args = args[1:]
	}
	if len(args) < 3 || args[1] != "--" {
		return fail("usage: %s POLICY -- PROGRAM [ARGS...]", LauncherName)
	}
	p, err := DecodePolicy(args[0])
	if err != nil {
		return fail("%v", err)
	}
	if inner {
		err := confineExec(p, args[2:])
		return fail("sandbox: %s: %v", args[2], err)
	}
	return hold(args[0], args[2:])
}

func fail(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
	return 126
}
