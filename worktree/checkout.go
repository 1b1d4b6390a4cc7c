package worktree

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"golang.org/x/sys/unix"

	"github.com/agentproto/agentproto/internal/gcfloor"
	"github.com/agentproto/agentproto/internal/gitobj"
)

// openStorage opens the common git dir with descriptors kept open: without
// it go-git reopens the pack for every object it reads, which dominated
// checkout time.
func openStorage(common string) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(gitobj.MmapFS{Filesystem: osfs.New(common)}, cache.NewObjectLRUDefault(),
		// Alternates name absolute paths (or paths relative to the objects
		// directory, resolved by our own pack reader); go-git needs a
		// filesystem rooted at / to follow them to loose objects.
		filesystem.Options{KeepDescriptors: true, LargeObjectThreshold: streamOver, AlternatesFS: osfs.New("/")})
}

// packStorer serves commits and trees from the mapped packs, and anything
// they do not hold from go-git's storage.
type packStorer struct {
	*filesystem.Storage
	r *gitobj.Reader
}

func (s *packStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, found, err := s.r.Read(h, nil)
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
	conv conversion // what git would do to its content on checkout
}

// checkoutTree writes the files of plan under dir and returns the index
// entries with their stat data, so that git sees the tree clean without
// re-reading a file. Batches of files of one directory go to several
// workers, each with its own object reader over the shared mapped packs
// (and, for what they lack, its own go-git storage: those are not safe for
// concurrent use); they write with plain system calls relative to a
// descriptor of the directory, never following a symlink (see dirMaker).
// The caller removes what was written on failure. Closing interrupted
// stops the workers.
func checkoutTree(st *filesystem.Storage, packs *gitobj.PackSet, common, dir string, plan *treePlan, interrupted <-chan struct{}) ([]*index.Entry, error) {
	// Checkout allocates per blob and finishes in well under a second;
	// collecting garbage during it costs more than the memory it frees.
	defer gcfloor.Pause()()

	dirs, err := newDirMaker(dir)
	if err != nil {
		return nil, err
	}
	defer dirs.Close()
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

	workers := runtime.GOMAXPROCS(0) + 1
	results := make([][]*index.Entry, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			br := &blobReader{common: common, packs: gitobj.NewReader(packs)}
			defer br.Close()
			for batch := range jobs {
				if errs[w] != nil {
					continue // drain so the sender can finish
				}
				select {
				case <-stop:
					continue // another worker failed, or an interrupt: drain
				default:
				}
				if err := writeBatch(br, dirs, batch, &results[w]); err != nil {
					errs[w] = err
					halt()
				}
			}
		}(w)
	}
	sendBatches(plan.files, jobs, stop)
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

// sendBatches sends files to jobs until stop closes, in batches of one
// directory each: files of a directory created by several workers at once
// contend on the directory's lock in the kernel.
func sendBatches(files []treeEntry, jobs chan<- []treeEntry, stop <-chan struct{}) {
	for len(files) > 0 {
		n := 1
		d := path.Dir(files[0].path)
		for n < len(files) && n < batchSize && path.Dir(files[n].path) == d {
			n++
		}
		select {
		case jobs <- files[:n]:
			files = files[n:]
		case <-stop:
			return
		}
	}
}

// writeBatch writes files of one directory through a descriptor of it.
func writeBatch(br *blobReader, dirs *dirMaker, batch []treeEntry, out *[]*index.Entry) error {
	fd, err := dirs.open(path.Dir(batch[0].path))
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for _, e := range batch {
		ie, err := writeEntry(br, fd, e)
		if err != nil {
			return err
		}
		*out = append(*out, ie)
	}
	return nil
}

// dirMaker creates the directories of a checkout and opens them without
// ever following a symlink: each component is opened with O_NOFOLLOW from
// its parent's descriptor, so a symlink where a directory should be (which
// the tree rules already exclude) fails the checkout instead of leading
// the writes elsewhere; EEXIST from mkdir is never taken for a directory
// made.
type dirMaker struct {
	root int
	mu   sync.Mutex
	made map[string]bool
}

func newDirMaker(dir string) (*dirMaker, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	return &dirMaker{root: fd, made: map[string]bool{}}, nil
}

func (d *dirMaker) Close() { unix.Close(d.root) }

// open returns a descriptor of directory rel ("." for the top), made if
// need be with its parents; the caller closes it.
func (d *dirMaker) open(rel string) (int, error) {
	fd, err := unix.Dup(d.root)
	if err != nil || rel == "." {
		return fd, err
	}
	done := 0
	for done < len(rel) {
		end := strings.IndexByte(rel[done:], '/')
		if end < 0 {
			end = len(rel)
		} else {
			end += done
		}
		name, sofar := rel[done:end], rel[:end]
		if err := d.mkdir(fd, name, sofar); err != nil {
			unix.Close(fd)
			return -1, err
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("opening directory %s: %w (not a directory made by this checkout)", sofar, err)
		}
		fd = next
		done = end + 1
	}
	return fd, nil
}

func (d *dirMaker) mkdir(parent int, name, rel string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.made[rel] {
		return nil
	}
	if err := unix.Mkdirat(parent, name, 0o777); err != nil {
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
	packs  *gitobj.Reader
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
	typ, data, stream, found, err := b.packs.ReadOrStream(h, b.buf, streamOver)
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

// writeEntry writes e in the directory open as dirfd, never through a
// symlink, and returns its index entry.
func writeEntry(br *blobReader, dirfd int, e treeEntry) (*index.Entry, error) {
	base := path.Base(e.path)
	var st unix.Stat_t
	if e.mode == filemode.Submodule {
		// As git: an empty directory, filled only by a submodule update.
		if err := unix.Mkdirat(dirfd, base, 0o777); err != nil {
			return nil, fmt.Errorf("creating %s: %w", e.path, err)
		}
		if err := unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, err
		}
		return indexEntry(e, &st), nil
	}
	content, stream, err := br.read(e.hash)
	if err == nil && stream != nil && e.mode == filemode.Symlink {
		content, err = io.ReadAll(stream)
		stream = nil
	}
	if err == nil && stream != nil && e.conv != convNone {
		// Too large to hold: count it once, then read it again, converted
		// as it streams when git would convert it.
		stream, err = convertStream(br, e, stream)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s (%s): %w", e.path, e.hash, err)
	}
	switch e.mode {
	case filemode.Symlink:
		if err := unix.Symlinkat(string(content), dirfd, base); err != nil {
			return nil, fmt.Errorf("creating %s: %w", e.path, err)
		}
		if err := unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, err
		}
	default:
		content = e.conv.apply(content)
		perm := uint32(0o666)
		if e.mode == filemode.Executable {
			perm = 0o777
		}
		fd, err := unix.Openat(dirfd, base, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err != nil {
			return nil, fmt.Errorf("creating %s: %w", e.path, err)
		}
		if stream != nil {
			err = copyToFD(fd, stream)
		} else {
			err = writeAll(fd, content)
		}
		if err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("writing %s: %w", e.path, err)
		}
		err = unix.Fstat(fd, &st)
		if cerr := unix.Close(fd); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return indexEntry(e, &st), nil
}

// convertStream reads stream to its end for git's text statistics and
// returns the blob read anew, through crlfReader when they say so.
func convertStream(br *blobReader, e treeEntry, stream io.Reader) (io.Reader, error) {
	var s textStats
	buf := make([]byte, 1<<20)
	for {
		n, err := stream.Read(buf)
		s.add(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	s.finish()
	content, again, err := br.read(e.hash)
	if err != nil {
		return nil, err
	}
	if again == nil {
		again = bytes.NewReader(content)
	}
	if e.conv.converts(s) {
		return &crlfReader{r: again}, nil
	}
	return again, nil
}

func indexEntry(e treeEntry, st *unix.Stat_t) *index.Entry {
	return &index.Entry{
		Hash: e.hash, Name: e.path, Mode: e.mode,
		CreatedAt:  time.Unix(st.Ctim.Sec, st.Ctim.Nsec),
		ModifiedAt: time.Unix(st.Mtim.Sec, st.Mtim.Nsec),
		Dev:        uint32(st.Dev), Inode: uint32(st.Ino),
		UID: st.Uid, GID: st.Gid, Size: uint32(st.Size),
	}
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
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
