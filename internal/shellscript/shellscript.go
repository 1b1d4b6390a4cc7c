// Package shellscript tells a shell script by its first line: what both
// the hook installer (which adds to shell hooks only) and the gate scan
// (which reads the scripts a gate runs) need, without either importing
// the other.
package shellscript

import (
	"path/filepath"
	"strings"
)

// IsShebang reports whether line is a #! line naming a POSIX-like
// shell, directly or through env.
func IsShebang(line string) bool {
	if !strings.HasPrefix(line, "#!") {
		return false
	}
	f := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(f) == 0 {
		return false
	}
	prog := filepath.Base(f[0])
	if prog == "env" && len(f) > 1 {
		prog = f[1]
	}
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh":
		return true
	}
	return false
}
