package sessions

import (
	"os"
	"path/filepath"
	"strings"
)

// A Group is the process group of one adapter plugin: the plugin and every
// process it started (the agent CLI and its children). The daemon records
// each one in the session's directory, so that groups a dead daemon left
// behind are found again whatever their binaries are called, and so that
// Enclosing finds the session a process runs in.
type Group struct {
	Pgid  int    `json:"pgid"`
	Start uint64 `json:"start"` // the leader's start time, clock ticks after boot
	Boot  string `json:"boot"`  // boot id: pids and start times mean nothing after a reboot
	// Sockets is the plugin's go-plugin socket directory.
	Sockets string `json:"sockets,omitempty"`
	// Tmp is the session's private temporary directory (sandboxed).
	Tmp string `json:"tmp,omitempty"`
}

// GroupPath is where a session's Group is recorded.
func (s View) GroupPath(id string) string { return filepath.Join(s.SessionDir(id), "group.json") }

// BootID names the running boot of this machine.
func BootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}
