package gitobj

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-billy/v5"
)

// MmapFS serves pack and pack index files from memory maps. go-git reads every object of
// a pack with a seek and a read; on a checkout of thousands of files those
// system calls cost more than inflating the objects. The checkout workers
// share one mapping per pack, populated in one call: page faults taken one
// by one by every worker cost more than the reads they replace. Everything
// else goes to the underlying filesystem.
type MmapFS struct {
	billy.Filesystem
}

// populateLimit bounds the packs mapped with MAP_POPULATE: larger ones are
// faulted in as they are read.
const populateLimit = 256 << 20

type mapping struct {
	data []byte
	refs int
}

var (
	mappingsMu sync.Mutex
	mappings   = map[string]*mapping{}
)

// Open opens pack and index files from their shared mapping, anything
// else from the underlying filesystem.
func (m MmapFS) Open(name string) (billy.File, error) {
	if !strings.HasSuffix(name, ".pack") && !strings.HasSuffix(name, ".idx") {
		return m.Filesystem.Open(name)
	}
	path := m.Filesystem.Join(m.Root(), name)
	data, release, err := acquireMapping(path)
	if err != nil {
		return m.Filesystem.Open(name) // fall back to plain reads
	}
	return &mmapFile{Reader: bytes.NewReader(data), name: name, release: release}, nil
}

// releaseMapping drops one reference to path's mapping and unmaps it when
// it was the last.
func releaseMapping(path string) error {
	mappingsMu.Lock()
	defer mappingsMu.Unlock()
	mp := mappings[path]
	if mp == nil {
		return nil
	}
	if mp.refs--; mp.refs > 0 {
		return nil
	}
	delete(mappings, path)
	return syscall.Munmap(mp.data)
}

func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil, err
	}
	flags := syscall.MAP_SHARED
	if fi.Size() <= populateLimit {
		flags |= syscall.MAP_POPULATE
	}
	return syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, flags)
}

// mmapFile is a read-only billy.File over a shared memory map.
type mmapFile struct {
	*bytes.Reader
	name    string
	release func()
	once    sync.Once
}

var errReadOnly = errors.New("read-only memory-mapped file")

func (f *mmapFile) Name() string              { return f.name }
func (f *mmapFile) Write([]byte) (int, error) { return 0, errReadOnly }
func (f *mmapFile) Truncate(int64) error      { return errReadOnly }
func (f *mmapFile) Lock() error               { return nil }
func (f *mmapFile) Unlock() error             { return nil }

// Close releases the mapping when its last reader is done.
func (f *mmapFile) Close() error {
	f.once.Do(f.release)
	return nil
}

// acquireMapping maps path read-only, sharing one mapping among all
// callers; release unmaps it after the last caller is done.
func acquireMapping(path string) ([]byte, func(), error) {
	mappingsMu.Lock()
	defer mappingsMu.Unlock()
	mp := mappings[path]
	if mp == nil {
		data, err := mapFile(path)
		if err != nil {
			return nil, nil, err
		}
		if data == nil {
			return nil, nil, fmt.Errorf("%s: %w", path, os.ErrInvalid)
		}
		mp = &mapping{data: data}
		mappings[path] = mp
	}
	mp.refs++
	return mp.data, func() { releaseMapping(path) }, nil
}
