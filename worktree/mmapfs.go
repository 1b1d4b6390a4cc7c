package worktree

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/go-git/go-billy/v5"
)

// mmapFS serves pack files from memory maps. go-git reads every object of
// a pack with a seek and a read; on a checkout of thousands of files those
// system calls cost more than inflating the objects. Everything else goes
// to the underlying filesystem.
type mmapFS struct {
	billy.Filesystem
}

func (m mmapFS) Open(name string) (billy.File, error) {
	if !strings.HasSuffix(name, ".pack") {
		return m.Filesystem.Open(name)
	}
	f, err := os.Open(m.Filesystem.Join(m.Root(), name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return m.Filesystem.Open(name)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return m.Filesystem.Open(name) // fall back to plain reads
	}
	return &mmapFile{Reader: bytes.NewReader(data), name: name, data: data}, nil
}

// mmapFile is a read-only billy.File over a memory map.
type mmapFile struct {
	*bytes.Reader
	name string
	data []byte
}

var errReadOnly = errors.New("read-only memory-mapped file")

func (f *mmapFile) Name() string              { return f.name }
func (f *mmapFile) Write([]byte) (int, error) { return 0, errReadOnly }
func (f *mmapFile) Truncate(int64) error      { return errReadOnly }
func (f *mmapFile) Lock() error               { return nil }
func (f *mmapFile) Unlock() error             { return nil }
func (f *mmapFile) Close() error {
	if f.data == nil {
		return nil
	}
	err := syscall.Munmap(f.data)
	f.data = nil
	return err
}
