package worktree

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// openStorage opens the common git dir with descriptors kept open: without
// it go-git reopens the pack for every object it reads, which dominated
// checkout time.
func openStorage(common string) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(mmapFS{osfs.New(common)}, cache.NewObjectLRUDefault(),
		// Alternates name absolute paths (or paths relative to the objects
		// directory, resolved by our own pack reader); go-git needs a
		// filesystem rooted at / to follow them to loose objects.
		filesystem.Options{KeepDescriptors: true, LargeObjectThreshold: streamOver, AlternatesFS: osfs.New("/")})
}

// packStorer serves commits and trees from the mapped packs, and anything
// they do not hold from go-git's storage.
type packStorer struct {
	*filesystem.Storage
	r *objectReader
}

func (s *packStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, found, err := s.r.read(h, nil)
	if err != nil {
		return nil, err
	}
	if !found {
		return s.Storage.EncodedObject(t, h)
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	o.Write(data)
	return o, nil
}

// treeEntry is one file of the tree to check out.
type treeEntry struct {
	path string
	hash plumbing.Hash
	mode filemode.FileMode
}

// checkoutTree writes the files of commit's tree under dir and returns the
// index entries with their stat data, so that git sees the tree clean
// without re-reading a file. One goroutine walks the tree while several
// workers read blobs, each with its own object reader over the shared
// mapped packs (and, for what they lack, its own go-git storage: those are
// not safe for concurrent use), and write them with plain system calls:
// the os.File machinery costs several extra calls per file. Trees go-git
// cannot check out faithfully (submodules, checkout conversions) are
// refused; the caller removes what was written. Closing interrupted stops
// the workers.
func checkoutTree(st *filesystem.Storage, common, dir string, commit plumbing.Hash, interrupted <-chan struct{}) ([]*index.Entry, error) {
	packs := openPackSet(common)
	defer packs.Close()
	// Objects straight from the storage: git.Open would parse the config,
	// and go-git rejects refspecs it does not know. Commit and trees come
	// from the mapped packs when they hold them.
	walkReader := newObjectReader(packs)
	defer walkReader.Close()
	walkSt := &packStorer{Storage: st, r: walkReader}
	c, err := object.GetCommit(walkSt, commit)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	// Checkout allocates per blob and finishes in well under a second;
	// collecting garbage during it costs more than the memory it frees.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	jobs := make(chan []treeEntry, 64)
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-interrupted:
			halt()
		case <-done:
		}
	}()
	dirs := &dirMaker{root: dir, made: map[string]bool{}}

	workers := runtime.GOMAXPROCS(0) + 1
	results := make([][]*index.Entry, workers)
	errs := make([]error, workers+1)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			br := &blobReader{common: common, packs: newObjectReader(packs)}
			defer br.Close()
			for batch := range jobs {
				if errs[w] != nil {
					continue // drain so the walker can finish
				}
				select {
				case <-stop:
					continue // another worker failed, or an interrupt: drain
				default:
				}
				if err := dirs.ensure(filepath.Dir(batch[0].path)); err != nil {
					errs[w] = err
					halt()
					continue
				}
				for _, e := range batch {
					ie, err := writeEntry(br, dir, e)
					if err != nil {
						errs[w] = err
						halt()
						break
					}
					results[w] = append(results[w], ie)
				}
			}
		}(w)
	}
	errs[workers] = walkTree(walkSt, tree, jobs, stop)
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	select {
	case <-interrupted:
		return nil, errInterrupted
	default:
	}
	var out []*index.Entry
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

var errInterrupted = errors.New("interrupted")

// batchSize bounds a batch of files of one directory given to a worker.
const batchSize = 32

// walkTree sends the files of tree to jobs until stop closes, in batches of
// one directory each: files of a directory created by several workers at
// once contend on the directory's lock in the kernel.
func walkTree(st storer.EncodedObjectStorer, tree *object.Tree, jobs chan<- []treeEntry, stop <-chan struct{}) error {
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	var batch []treeEntry
	flush := func() bool {
		if len(batch) == 0 {
			return true
		}
		select {
		case jobs <- batch:
			batch = nil
			return true
		case <-stop:
			return false
		}
	}
	for {
		name, e, err := w.Next()
		if err == io.EOF {
			flush()
			return nil
		}
		if err != nil {
			return err
		}
		switch e.Mode {
		case filemode.Dir:
			continue
		case filemode.Submodule:
			return unsupported("the base tree has a submodule at %s", name)
		}
		if path.Base(name) == ".gitattributes" {
			if err := checkAttributes(st, name, e.Hash); err != nil {
				return err
			}
		}
		if len(batch) > 0 && (len(batch) >= batchSize || path.Dir(batch[0].path) != path.Dir(name)) {
			if !flush() {
				return nil
			}
		}
		batch = append(batch, treeEntry{path: name, hash: e.Hash, mode: e.Mode})
	}
}

// dirMaker creates directories once, parents first, from many goroutines.
type dirMaker struct {
	root string
	mu   sync.Mutex
	made map[string]bool
}

func (d *dirMaker) ensure(rel string) error {
	if rel == "." {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ensureLocked(rel)
}

func (d *dirMaker) ensureLocked(rel string) error {
	if rel == "." || d.made[rel] {
		return nil
	}
	if err := d.ensureLocked(filepath.Dir(rel)); err != nil {
		return err
	}
	if err := syscall.Mkdir(filepath.Join(d.root, rel), 0o777); err != nil && err != syscall.EEXIST {
		return fmt.Errorf("creating %s: %w", rel, err)
	}
	d.made[rel] = true
	return nil
}

// blobReader reads blobs for one checkout worker: from the mapped packs
// when they hold the blob, else through go-git's storage, opened on first
// need.
type blobReader struct {
	common string
	packs  *objectReader
	st     *filesystem.Storage
	buf    []byte
	spill  bytes.Buffer
	// pending is the stream of a large loose object last handed out, closed
	// even when it was not read to its end.
	pending io.Closer
}

// streamOver is the size above which a blob stored whole is written
// while it is inflated, never held in memory at once.
var streamOver int64 = 8 << 20

// read returns blob h, in memory or, when large, as a stream to be read to
// its end before the next call.
func (b *blobReader) read(h plumbing.Hash) ([]byte, io.Reader, error) {
	b.closePending()
	typ, data, stream, found, err := b.packs.readOrStream(h, b.buf, streamOver)
	if err != nil {
		return nil, nil, err
	}
	if found {
		if typ != plumbing.BlobObject {
			return nil, nil, fmt.Errorf("object %s is a %s, not a blob", h, typ)
		}
		if cap(data) > cap(b.buf) && int64(cap(data)) <= streamOver {
			b.buf = data[:0]
		}
		if c, ok := stream.(io.Closer); ok {
			b.pending = c // closed by the next read or Close
		}
		return data, stream, nil
	}
	if b.st == nil {
		b.st = openStorage(b.common)
	}
	obj, err := b.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, nil, err
	}
	if obj.Size() > streamOver {
		b.pending = rd // closed by the next read or Close
		return nil, rd, nil
	}
	defer rd.Close()
	b.spill.Reset()
	_, err = b.spill.ReadFrom(rd)
	return b.spill.Bytes(), nil, err
}

func (b *blobReader) closePending() {
	if b.pending != nil {
		b.pending.Close()
		b.pending = nil
	}
}

func (b *blobReader) Close() {
	b.closePending()
	b.packs.Close()
	if b.st != nil {
		b.st.Close()
	}
}

func writeEntry(br *blobReader, dir string, e treeEntry) (*index.Entry, error) {
	content, stream, err := br.read(e.hash)
	if err == nil && stream != nil && e.mode == filemode.Symlink {
		content, err = io.ReadAll(stream)
		stream = nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s (%s): %w", e.path, e.hash, err)
	}
	path := filepath.Join(dir, e.path)
	var st2 syscall.Stat_t
	switch e.mode {
	case filemode.Symlink:
		if err := os.Symlink(string(content), path); err != nil {
			return nil, err
		}
		if err := syscall.Lstat(path, &st2); err != nil {
			return nil, err
		}
	default:
		perm := uint32(0o666)
		if e.mode == filemode.Executable {
			perm = 0o777
		}
		fd, err := syscall.Open(path, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY|syscall.O_CLOEXEC, perm)
		if err != nil {
			return nil, fmt.Errorf("creating %s: %w", e.path, err)
		}
		if stream != nil {
			err = copyToFD(fd, stream)
		} else {
			err = writeAll(fd, content)
		}
		if err != nil {
			syscall.Close(fd)
			return nil, fmt.Errorf("writing %s: %w", e.path, err)
		}
		err = syscall.Fstat(fd, &st2)
		if cerr := syscall.Close(fd); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return &index.Entry{
		Hash: e.hash, Name: e.path, Mode: e.mode,
		CreatedAt:  time.Unix(st2.Ctim.Sec, st2.Ctim.Nsec),
		ModifiedAt: time.Unix(st2.Mtim.Sec, st2.Mtim.Nsec),
		Dev:        uint32(st2.Dev), Inode: uint32(st2.Ino),
		UID: st2.Uid, GID: st2.Gid, Size: uint32(st2.Size),
	}, nil
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// copyToFD writes everything stream yields to fd, reading to its end.
func copyToFD(fd int, stream io.Reader) error {
	buf := make([]byte, 1<<20)
	for {
		n, err := stream.Read(buf)
		if werr := writeAll(fd, buf[:n]); werr != nil {
			return werr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeIndex writes the index through "index.lock" and a rename, as git
// does, so a reader never sees half an index.
func writeIndex(path string, entries []*index.Entry) error {
	idx := &index.Index{Version: 2, Entries: entries}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := index.NewEncoder(bw).Encode(idx); err != nil {
		f.Close()
		os.Remove(lock)
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		os.Remove(lock)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return err
	}
	return os.Rename(lock, path)
}

// attributeProblems lists .gitattributes rules that ask git to transform
// files on checkout, which go-git does not do.
func attributeProblems(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, attr := range strings.Fields(line)[1:] {
			name, _, _ := strings.Cut(strings.TrimLeft(attr, "-!"), "=")
			switch name {
			case "filter", "eol", "text", "working-tree-encoding", "ident", "crlf":
				if !strings.HasPrefix(attr, "-") && !strings.HasPrefix(attr, "!") {
					out = append(out, line)
				}
			}
		}
	}
	return out
}
