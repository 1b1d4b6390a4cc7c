// Package gitobj reads and writes git objects directly: the packs and
// loose objects of a repository (and of the stores it borrows from) read
// from memory maps, and new objects written loose or as one pack with its
// index. Both sides follow git's formats byte for byte, so git cat-file and
// git fsck accept what is written and agree with what is read.
package gitobj

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// maxDeltaDepth bounds how far a chain of deltas is followed; git itself
// writes chains of at most 4095.
const maxDeltaDepth = 10000

// ErrCorrupt marks a damaged pack entry or loose object.
var ErrCorrupt = errors.New("corrupt pack entry")

// Reader reads objects of a PackSet for one goroutine: it keeps its
// own inflater and a small cache of delta bases.
type Reader struct {
	set   *PackSet
	zr    io.ReadCloser
	src   bytes.Reader
	bases baseCache
	// loose reads a loose object: its file, the inflater, its output.
	loose struct {
		file, content *bufio.Reader
		z             io.ReadCloser
	}
}

// NewReader returns a reader of set for one goroutine.
func NewReader(set *PackSet) *Reader {
	return &Reader{set: set, bases: baseCache{limit: 32 << 20}}
}

// Close releases the reader's inflater.
func (r *Reader) Close() {
	if r.zr != nil {
		r.zr.Close()
	}
	if r.loose.z != nil {
		r.loose.z.Close()
	}
}

// Read returns the type and content of object h. found is false when no
// mapped pack holds h, or holds it as a delta against an object outside
// the pack. The content may alias dst's storage or the base cache: the
// caller must not keep it past the next call.
func (r *Reader) Read(h plumbing.Hash, dst []byte) (typ plumbing.ObjectType, data []byte, found bool, err error) {
	typ, data, _, found, err = r.ReadOrStream(h, dst, -1)
	return typ, data, found, err
}

// ReadOrStream is Read, except that an object stored whole and larger
// than streamOver bytes (when streamOver >= 0) comes back as a stream
// rather than in memory. The stream must be read to its end before the
// next call; its end checks the size and the Adler-32 sum.
func (r *Reader) ReadOrStream(h plumbing.Hash, dst []byte, streamOver int64) (typ plumbing.ObjectType, data []byte, stream io.Reader, found bool, err error) {
	for _, p := range r.set.packs {
		off, ok := p.find(h)
		if !ok {
			continue
		}
		if streamOver >= 0 {
			var size uint64
			var hdr int
			typ, size, hdr, err = p.header(off)
			if err == nil && isWhole(typ) && size > uint64(streamOver) {
				return typ, nil, r.streamAt(p, off+int64(hdr), size), true, nil
			}
		}
		typ, data, err = r.readAt(p, off, dst, 0)
		if errors.Is(err, errBaseOutside) {
			return 0, nil, nil, false, nil
		}
		if err != nil {
			return 0, nil, nil, true, fmt.Errorf("%s at %s offset %d: %w", h, p.name, off, err)
		}
		return typ, data, nil, true, nil
	}
	return r.readLoose(h, dst, streamOver)
}

// readLoose reads h from the loose objects of the object directories.
func (r *Reader) readLoose(h plumbing.Hash, dst []byte, streamOver int64) (typ plumbing.ObjectType, data []byte, stream io.Reader, found bool, err error) {
	hex := h.String()
	for _, dir := range r.set.dirs {
		path := filepath.Join(dir, hex[:2], hex[2:])
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, nil, nil, true, err
		}
		typ, data, stream, err := r.inflateLoose(f, dst, streamOver)
		if err != nil {
			f.Close()
			return 0, nil, nil, true, fmt.Errorf("loose object %s: %w", path, err)
		}
		if stream == nil {
			f.Close()
		} else {
			stream = &closeAtEnd{Reader: stream, c: f}
		}
		return typ, data, stream, true, nil
	}
	return 0, nil, nil, false, nil
}

// inflateLoose reads a loose object: zlib around "TYPE SIZE\x00" and the
// content.
func (r *Reader) inflateLoose(f *os.File, dst []byte, streamOver int64) (plumbing.ObjectType, []byte, io.Reader, error) {
	// The readers are kept from one object to the next: a new inflater
	// and two buffers per object cost more than inflating a small one.
	// A stream is read to its end before the next call, so one set serves.
	if r.loose.file == nil {
		r.loose.file = bufio.NewReader(f)
	} else {
		r.loose.file.Reset(f)
	}
	if r.loose.z == nil {
		zr, err := zlib.NewReader(r.loose.file)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		r.loose.z = zr
	} else if err := r.loose.z.(zlib.Resetter).Reset(r.loose.file, nil); err != nil {
		return 0, nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if r.loose.content == nil {
		r.loose.content = bufio.NewReader(r.loose.z)
	} else {
		r.loose.content.Reset(r.loose.z)
	}
	br := r.loose.content
	head, err := br.ReadString(0)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%w: no header", ErrCorrupt)
	}
	name, sizeText, ok := strings.Cut(strings.TrimSuffix(head, "\x00"), " ")
	size, serr := strconv.ParseInt(sizeText, 10, 64)
	typ, terr := plumbing.ParseObjectType(name)
	if !ok || serr != nil || size < 0 || terr != nil {
		return 0, nil, nil, fmt.Errorf("%w: bad header %q", ErrCorrupt, head)
	}
	stream := &sizedReader{r: br, left: size}
	if streamOver >= 0 && size > streamOver {
		return typ, nil, stream, nil
	}
	if int64(cap(dst)) < size {
		dst = make([]byte, size)
	}
	dst = dst[:size]
	if err := readWhole(stream, dst); err != nil {
		return 0, nil, nil, err
	}
	return typ, dst, nil, nil
}

// closeAtEnd closes c once the stream it wraps has ended.
type closeAtEnd struct {
	io.Reader
	c io.Closer
}

func (s *closeAtEnd) Read(b []byte) (int, error) {
	n, err := s.Reader.Read(b)
	if err != nil {
		s.Close()
	}
	return n, err
}

// Close closes the file early, for a reader that stops before the end.
func (s *closeAtEnd) Close() error {
	if s.c == nil {
		return nil
	}
	err := s.c.Close()
	s.c = nil
	return err
}

func isWhole(typ plumbing.ObjectType) bool {
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		return true
	}
	return false
}

// streamAt inflates the zlib stream at off, which must yield size bytes.
func (r *Reader) streamAt(p *packFile, off int64, size uint64) io.Reader {
	src := bytes.NewReader(p.data[off:])
	zr, err := zlib.NewReader(src)
	if err != nil {
		return errReader{fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	return &sizedReader{r: zr, left: int64(size)}
}

// sizedReader passes on a stream that must hold exactly left more bytes.
type sizedReader struct {
	r    io.Reader
	left int64
}

func (s *sizedReader) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	s.left -= int64(n)
	switch {
	case s.left < 0:
		return n, fmt.Errorf("%w: more data than the header says", ErrCorrupt)
	case err == io.EOF && s.left > 0:
		return n, fmt.Errorf("%w: %d bytes missing", ErrCorrupt, s.left)
	case err != nil && err != io.EOF:
		return n, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

var errBaseOutside = errors.New("delta base outside the pack")

func (r *Reader) readAt(p *packFile, off int64, dst []byte, depth int) (plumbing.ObjectType, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, fmt.Errorf("%w: delta chain deeper than %d", ErrCorrupt, maxDeltaDepth)
	}
	typ, size, i, err := p.header(off)
	if err != nil {
		return 0, nil, err
	}
	b := p.data[off:]
	var c byte
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		data, err := r.inflate(b[i:], size, dst)
		return typ, data, err
	case packOfsDelta:
		if i >= len(b) {
			return 0, nil, fmt.Errorf("%w: bad delta offset", ErrCorrupt)
		}
		c = b[i]
		i++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(b) || rel > 1<<48 {
				return 0, nil, fmt.Errorf("%w: bad delta offset", ErrCorrupt)
			}
			c = b[i]
			i++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		return r.applyDelta(p, off-rel, b[i:], size, depth)
	case packRefDelta:
		if i+20 > len(b) {
			return 0, nil, fmt.Errorf("%w: bad delta base", ErrCorrupt)
		}
		var base plumbing.Hash
		copy(base[:], b[i:i+20])
		baseOff, ok := p.find(base)
		if !ok {
			return 0, nil, errBaseOutside
		}
		return r.applyDelta(p, baseOff, b[i+20:], size, depth)
	}
	return 0, nil, fmt.Errorf("%w: unknown type %d", ErrCorrupt, typ)
}

// applyDelta builds the object whose delta against the entry at baseOff
// is stored, compressed, in z.
func (r *Reader) applyDelta(p *packFile, baseOff int64, z []byte, size uint64, depth int) (plumbing.ObjectType, []byte, error) {
	typ, base, ok := r.bases.get(p, baseOff)
	if !ok {
		var err error
		typ, base, err = r.readAt(p, baseOff, nil, depth+1)
		if err != nil {
			return 0, nil, err
		}
		r.bases.put(p, baseOff, typ, base)
	}
	delta, err := r.inflate(z, size, nil)
	if err != nil {
		return 0, nil, err
	}
	data, err := packfile.PatchDelta(base, delta)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return typ, data, nil
}

// inflate decompresses exactly size bytes from the zlib stream at z into
// dst (grown when too small).
func (r *Reader) inflate(z []byte, size uint64, dst []byte) ([]byte, error) {
	if size > uint64(len(z))*1032+64 { // deflate expands at most ~1032:1
		return nil, fmt.Errorf("%w: size %d does not fit the pack", ErrCorrupt, size)
	}
	if uint64(cap(dst)) < size {
		dst = make([]byte, size)
	}
	dst = dst[:size]
	r.src.Reset(z)
	if r.zr == nil {
		zr, err := zlib.NewReader(&r.src)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		r.zr = zr
	} else if err := r.zr.(zlib.Resetter).Reset(&r.src, nil); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := readWhole(r.zr, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// readWhole fills dst from rd and requires rd to end right there: reading
// on to the end of a zlib stream is what checks its Adler-32 sum.
func readWhole(rd io.Reader, dst []byte) error {
	if _, err := io.ReadFull(rd, dst); err != nil {
		return corrupt(err)
	}
	var extra [1]byte
	switch n, err := rd.Read(extra[:]); {
	case n != 0 || err == nil:
		return fmt.Errorf("%w: more data than the header says", ErrCorrupt)
	case err != io.EOF:
		return corrupt(err)
	}
	return nil
}

// corrupt marks err as a damaged object, once.
func corrupt(err error) error {
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// baseCache keeps recently used delta bases, up to limit bytes, so that a
// chain shared by many objects is inflated once.
type baseCache struct {
	limit, used int
	entries     map[baseKey]cachedBase
	order       []baseKey
}

type baseKey struct {
	pack *packFile
	off  int64
}

type cachedBase struct {
	typ  plumbing.ObjectType
	data []byte
}

func (c *baseCache) get(p *packFile, off int64) (plumbing.ObjectType, []byte, bool) {
	e, ok := c.entries[baseKey{p, off}]
	return e.typ, e.data, ok
}

func (c *baseCache) put(p *packFile, off int64, typ plumbing.ObjectType, data []byte) {
	if len(data) > c.limit {
		return
	}
	if c.entries == nil {
		c.entries = map[baseKey]cachedBase{}
	}
	for c.used+len(data) > c.limit && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.used -= len(c.entries[old].data)
		delete(c.entries, old)
	}
	k := baseKey{p, off}
	c.entries[k] = cachedBase{typ, data}
	c.order = append(c.order, k)
	c.used += len(data)
}

// Has reports whether the object directories hold h, packed or loose,
// without reading it.
func (r *Reader) Has(h plumbing.Hash) bool {
	for _, p := range r.set.packs {
		if _, ok := p.find(h); ok {
			return true
		}
	}
	hex := h.String()
	for _, dir := range r.set.dirs {
		if _, err := os.Stat(filepath.Join(dir, hex[:2], hex[2:])); err == nil {
			return true
		}
	}
	return false
}
