package worktree

// The files of a checkout: directories made without following a symlink,
// blobs read from the packs, each file written and its index entry made.

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"golang.org/x/sys/unix"

	"github.com/agentproto/agentproto/internal/gitobj"
)

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
