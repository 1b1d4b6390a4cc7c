package acp

import (
	"syscall"

	"github.com/agentproto/agentproto/internal/procfs"
)

// leftBehind is what the agent had started when it was told to end, each
// process with its start time. An npm launcher starts the agent's native
// binary as its child; once the launcher exits that child is re-parented
// and nothing of this adapter reaches it, so Terminate would leave it
// running (seen with codex-acp: minutes after its session ended).
type leftBehind map[int]uint64

// startedBy reads the processes below pid now.
func startedBy(pid int) leftBehind {
	out := leftBehind{}
	for _, p := range procfs.Descendants(pid) {
		if st, err := procfs.ReadStat(p); err == nil {
			out[p] = st.Start
		}
	}
	return out
}

// kill ends those still running: a pid is killed only while it is the
// process it was (same start time), never a later one that reused it.
func (l leftBehind) kill() {
	for pid, start := range l {
		if st, err := procfs.ReadStat(pid); err == nil && st.Start == start {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
