package cliturn

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// signalTree sends sig to pid and to every process descending from it.
// Agent CLIs are often wrappers (codex's npm launcher runs the native
// binary as its child): a signal to the wrapper alone can leave the real
// agent running and holding the turn's output open. Descendants are found
// in /proc; where there is none, only pid is signalled.
func signalTree(pid int, sig syscall.Signal) {
	for _, p := range descendants(pid) {
		syscall.Kill(p, sig)
	}
	syscall.Kill(pid, sig)
}

// descendants lists the processes below pid, deepest last.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	queue := children[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		queue = append(queue, children[p]...)
	}
	return out
}
