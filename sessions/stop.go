package sessions

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// LockPath is the file a daemon holds locked (flock) for as long as it
// runs, its shutdown included.
func LockPath(common string) string { return filepath.Join(common, "agentproto", "daemon.lock") }

// Stop asks the daemon to stop and waits until it is gone, its sessions
// ended; it returns its process id and the records of the sessions it
// ended. It refuses while a turn is in progress unless force. Like every
// call it starts a daemon when none runs: ask Probe first.
func (c *Client) Stop(ctx context.Context, force bool) (int, []*Record, error) {
	resp, err := c.Call(ctx, &Request{Op: OpStop, Force: force})
	if err != nil {
		return 0, nil, err
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for held(LockPath(c.Repo.CommonDir)) {
		select {
		case <-ctx.Done():
			return resp.Pid, resp.Records, ctx.Err()
		case <-tick.C:
		}
	}
	return resp.Pid, resp.Records, nil
}

// held reports whether a process holds the lock file path.
func held(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
