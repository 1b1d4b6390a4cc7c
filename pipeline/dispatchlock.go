package pipeline

import (
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

// lockWait bounds how long a dispatch waits for another to finish
// launching its wave: launching is worktrees, setup hooks and session
// starts, never the wait for the agents, so minutes are plenty.
const lockWait = 10 * time.Minute

// lockDispatch takes the plan's dispatch lock, so two runs of one plan
// (two WPs settling at once each firing a dispatch, or a user's beside
// the daemon's) never launch a wave together: the second reads the
// ledger after the first recorded its sessions, and starts nothing twice.
// The lock is flock(2) on a file in the common git dir, released when
// the process ends, so a crashed run leaves no stale lock.
func lockDispatch(commonDir, project string, wait time.Duration) (func(), error) {
	path := filepath.Join(commonDir, "agentproto", "dispatch", project+".lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK || !time.Now().Before(deadline) {
			f.Close()
			if err == syscall.EWOULDBLOCK {
				return nil, fault.Conflictf("another dispatch of %s is still launching a wave after %s; run dispatch again once it is done", project, wait)
			}
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
