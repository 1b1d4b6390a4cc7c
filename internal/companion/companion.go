// Package companion finds the programs installed with git-agentproto: the
// sessions daemon (which also launches adapters for the CLI), the MCP
// server and, from their side, the CLI itself. They are separate binaries
// so that the CLI links neither the plugin transport, whose
// initialisation alone cost every command 2.4 ms of start-up, nor the MCP
// SDK and its JSON schema machinery (--version 28.4 vs 25.6 ms and 32.0
// vs 29.4 ms, medians of 150 alternating runs on the 2-core machine,
// where a Go hello-world took 7.8-9.0 ms; binary 40.1 vs 36.5 MB).
package companion

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Program names, as make install and go install put them in one directory.
const (
	CLI      = "git-agentproto"
	Sessions = "agentproto-sessions"
	MCP      = "agentproto-mcp"
)

// Find returns the path of program name: beside the running executable
// first, so that a CLI finds the daemon of its own installation, then on
// PATH. The error says how to install it.
func Find(name string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	return "", fmt.Errorf("%s is not installed beside %s nor on PATH (make install puts it there; or go install github.com/agentproto/agentproto/cmd/%s@latest)", name, executableName(), name)
}

func executableName() string {
	if exe, err := os.Executable(); err == nil {
		return filepath.Base(exe)
	}
	return "this program"
}
