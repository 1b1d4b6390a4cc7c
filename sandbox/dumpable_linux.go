package sandbox

import "golang.org/x/sys/unix"

// Undumpable closes this process to every other process of the same user
// that is not root: /proc/PID/environ, mem and the other ptrace-guarded
// files, and ptrace itself. Commands holding the user's tokens call it
// first; it does not pass to the programs they exec.
func Undumpable() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
