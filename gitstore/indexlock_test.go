package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func openTwice(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.db")
	a, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// A writer's lock keeps out readers and writers until it is let go; the
// wait ends with bbolt's own timeout error, which openIndexFile reports.
func TestIndexLockWaitsForTheHolder(t *testing.T) {
	held, other := openTwice(t)
	if err := lockIndexFile(held, false, time.Second); err != nil {
		t.Fatal(err)
	}
	for _, readOnly := range []bool{true, false} {
		if err := lockIndexFile(other, readOnly, 20*time.Millisecond); !errors.Is(err, bolt.ErrTimeout) {
			t.Fatalf("read-only %v: got %v while another file holds the lock, want bolt.ErrTimeout", readOnly, err)
		}
	}
	heldFd := int(held.Fd())
	letGo := make(chan struct{})
	go func() {
		defer close(letGo)
		time.Sleep(30 * time.Millisecond)
		syscall.Flock(heldFd, syscall.LOCK_UN)
	}()
	err := lockIndexFile(other, false, time.Minute)
	<-letGo // the file is closed at cleanup only after the goroutine used it
	if err != nil {
		t.Fatalf("after the holder let go: %v", err)
	}
	// Taken: bbolt's own attempt on the same file succeeds at once.
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("bbolt's flock on the file that holds the lock: %v", err)
	}
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		t.Fatal("the first file took a shared lock beside the exclusive one")
	}
}

// Readers share the lock.
func TestIndexLockIsSharedByReaders(t *testing.T) {
	a, b := openTwice(t)
	if err := lockIndexFile(a, true, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := lockIndexFile(b, true, 0); err != nil {
		t.Fatalf("a second reader: %v", err)
	}
}
