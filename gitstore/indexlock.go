package gitstore

import (
	"os"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Waiting for the index's lock. bbolt takes flock(2) on the file itself
// and, while another holder has it, retries every 50 ms: an append that
// met another one (the sessions daemon records a session's turn end while
// the start it belongs to records its own event) waited 50 ms for a lock
// held for 3. So the index is locked here first, on the file bbolt opened
// (its OpenFile hook), in short steps; bbolt's own flock on that file
// then succeeds at once, as a lock its open file already holds.
const (
	indexLockFirstStep = 500 * time.Microsecond
	indexLockMaxStep   = 5 * time.Millisecond
)

// lockIndexFile takes f's flock, shared to read or exclusive to write, as
// bbolt would, waiting at most within. It returns bolt.ErrTimeout when
// the lock stayed held, as bbolt's Open does.
func lockIndexFile(f *os.File, readOnly bool, within time.Duration) error {
	how := syscall.LOCK_EX
	if readOnly {
		how = syscall.LOCK_SH
	}
	deadline := time.Now().Add(within)
	step := indexLockFirstStep
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			return err
		}
		if !time.Now().Before(deadline) {
			return bolt.ErrTimeout
		}
		time.Sleep(step)
		step = min(2*step, indexLockMaxStep)
	}
}
