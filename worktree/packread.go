package worktree

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
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

// packSet reads objects straight out of the memory-mapped pack files and
// the loose objects of the repository and of the stores it borrows from.
// go-git's object storage copies every object through a growing buffer,
// hashes it and caches it; for a checkout of thousands of blobs that work
// cost more than inflating them. Objects found nowhere here (an index
// version we do not read, a delta against an object outside its pack) are
// left to go-git: lookups answer found=false and the caller falls back.
type packSet struct {
	packs []*packFile
	// dirs are the object directories, own first, for loose objects.
	dirs []string
}

// packFile is one pack and its version-2 index, both mapped read-only.
type packFile struct {
	name        string
	idx, data   []byte
	count       int
	releaseIdx  func()
	releasePack func()
}

// openPackSet maps every pack of the repository and of the object stores
// it borrows from (objects/info/alternates) that has a version-2 index.
// Packs it cannot use are skipped; go-git serves their objects.
func openPackSet(common string) *packSet {
	set := &packSet{dirs: objectDirs(filepath.Join(common, "objects"))}
	var idxs []string
	for _, dir := range set.dirs {
		found, _ := filepath.Glob(filepath.Join(dir, "pack", "pack-*.idx"))
		idxs = append(idxs, found...)
	}
	for _, idxPath := range idxs {
		packPath := idxPath[:len(idxPath)-len(".idx")] + ".pack"
		idx, releaseIdx, err := acquireMapping(idxPath)
		if err != nil || !validIndex(idx) {
			if releaseIdx != nil {
				releaseIdx()
			}
			continue
		}
		data, releasePack, err := acquireMapping(packPath)
		if err != nil || len(data) < 12 || string(data[:4]) != "PACK" {
			releaseIdx()
			if releasePack != nil {
				releasePack()
			}
			continue
		}
		set.packs = append(set.packs, &packFile{name: filepath.Base(packPath), idx: idx, data: data,
			count: int(binary.BigEndian.Uint32(idx[8+255*4:])), releaseIdx: releaseIdx, releasePack: releasePack})
	}
	return set
}

// maxAlternateDepth bounds chains of alternates, as git does.
const maxAlternateDepth = 5

// objectDirs returns objects and the object directories its alternates
// name, recursively: absolute paths, or paths relative to the directory
// whose alternates file names them.
func objectDirs(objects string) []string {
	seen := map[string]bool{}
	var out []string
	var visit func(dir string, depth int)
	visit = func(dir string, depth int) {
		dir = filepath.Clean(dir)
		if seen[dir] || depth > maxAlternateDepth {
			return
		}
		seen[dir] = true
		out = append(out, dir)
		b, err := os.ReadFile(filepath.Join(dir, "info", "alternates"))
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(dir, line)
			}
			visit(line, depth+1)
		}
	}
	visit(objects, 0)
	return out
}

func (s *packSet) Close() {
	for _, p := range s.packs {
		p.releaseIdx()
		p.releasePack()
	}
	s.packs = nil
}

// validIndex checks the version-2 header and that the tables the fanout
// promises fit in the file.
func validIndex(idx []byte) bool {
	if len(idx) < 8+256*4 || !bytes.Equal(idx[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return false
	}
	n := int(binary.BigEndian.Uint32(idx[8+255*4:]))
	return len(idx) >= 8+256*4+n*(20+4+4)+2*20
}

// find returns the offset of h in the pack.
func (p *packFile) find(h plumbing.Hash) (int64, bool) {
	fanout := p.idx[8:]
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(fanout[(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(fanout[int(h[0])*4:]))
	names := p.idx[8+256*4:]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(names[mid*20:mid*20+20], h[:]); {
		case c == 0:
			return p.offsetAt(mid)
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

func (p *packFile) offsetAt(i int) (int64, bool) {
	offsets := p.idx[8+256*4+p.count*24:]
	o := binary.BigEndian.Uint32(offsets[i*4:])
	if o&0x80000000 == 0 {
		return int64(o), true
	}
	large := offsets[p.count*4:]
	at := int(o&0x7fffffff) * 8
	if at+8 > len(large)-40 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(large[at:])), true
}

// Pack entry types, as the pack format numbers them.
const (
	packOfsDelta = 6
	packRefDelta = 7
)

// maxDeltaDepth bounds how far a chain of deltas is followed; git itself
// writes chains of at most 4095.
const maxDeltaDepth = 10000

var errCorruptPack = errors.New("corrupt pack entry")

// objectReader reads objects of a packSet for one goroutine: it keeps its
// own inflater and a small cache of delta bases.
type objectReader struct {
	set   *packSet
	zr    io.ReadCloser
	src   bytes.Reader
	bases baseCache
}

func newObjectReader(set *packSet) *objectReader {
	return &objectReader{set: set, bases: baseCache{limit: 32 << 20}}
}

func (r *objectReader) Close() {
	if r.zr != nil {
		r.zr.Close()
	}
}

// read returns the type and content of object h. found is false when no
// mapped pack holds h, or holds it as a delta against an object outside
// the pack. The content may alias dst's storage or the base cache: the
// caller must not keep it past the next call.
func (r *objectReader) read(h plumbing.Hash, dst []byte) (typ plumbing.ObjectType, data []byte, found bool, err error) {
	typ, data, _, found, err = r.readOrStream(h, dst, -1)
	return typ, data, found, err
}

// readOrStream is read, except that an object stored whole and larger
// than streamOver bytes (when streamOver >= 0) comes back as a stream
// rather than in memory. The stream must be read to its end before the
// next call; its end checks the size and the Adler-32 sum.
func (r *objectReader) readOrStream(h plumbing.Hash, dst []byte, streamOver int64) (typ plumbing.ObjectType, data []byte, stream io.Reader, found bool, err error) {
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
func (r *objectReader) readLoose(h plumbing.Hash, dst []byte, streamOver int64) (typ plumbing.ObjectType, data []byte, stream io.Reader, found bool, err error) {
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
func (r *objectReader) inflateLoose(f *os.File, dst []byte, streamOver int64) (plumbing.ObjectType, []byte, io.Reader, error) {
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%w: %v", errCorruptPack, err)
	}
	br := bufio.NewReader(zr)
	head, err := br.ReadString(0)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%w: no header", errCorruptPack)
	}
	name, sizeText, ok := strings.Cut(strings.TrimSuffix(head, "\x00"), " ")
	size, serr := strconv.ParseInt(sizeText, 10, 64)
	typ, terr := plumbing.ParseObjectType(name)
	if !ok || serr != nil || size < 0 || terr != nil {
		return 0, nil, nil, fmt.Errorf("%w: bad header %q", errCorruptPack, head)
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

// header parses the type and size of the entry at off and returns how
// many bytes the header takes.
func (p *packFile) header(off int64) (plumbing.ObjectType, uint64, int, error) {
	if off < 12 || off >= int64(len(p.data)) {
		return 0, 0, 0, fmt.Errorf("%w: offset out of range", errCorruptPack)
	}
	b := p.data[off:]
	c := b[0]
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := uint64(c & 15)
	i := 1
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if i >= len(b) || shift > 56 {
			return 0, 0, 0, fmt.Errorf("%w: bad header", errCorruptPack)
		}
		c = b[i]
		size |= uint64(c&0x7f) << shift
		i++
	}
	return typ, size, i, nil
}

// streamAt inflates the zlib stream at off, which must yield size bytes.
func (r *objectReader) streamAt(p *packFile, off int64, size uint64) io.Reader {
	src := bytes.NewReader(p.data[off:])
	zr, err := zlib.NewReader(src)
	if err != nil {
		return errReader{fmt.Errorf("%w: %v", errCorruptPack, err)}
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
		return n, fmt.Errorf("%w: more data than the header says", errCorruptPack)
	case err == io.EOF && s.left > 0:
		return n, fmt.Errorf("%w: %d bytes missing", errCorruptPack, s.left)
	case err != nil && err != io.EOF:
		return n, fmt.Errorf("%w: %v", errCorruptPack, err)
	}
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

var errBaseOutside = errors.New("delta base outside the pack")

func (r *objectReader) readAt(p *packFile, off int64, dst []byte, depth int) (plumbing.ObjectType, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, fmt.Errorf("%w: delta chain deeper than %d", errCorruptPack, maxDeltaDepth)
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
			return 0, nil, fmt.Errorf("%w: bad delta offset", errCorruptPack)
		}
		c = b[i]
		i++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(b) || rel > 1<<48 {
				return 0, nil, fmt.Errorf("%w: bad delta offset", errCorruptPack)
			}
			c = b[i]
			i++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		return r.applyDelta(p, off-rel, b[i:], size, depth)
	case packRefDelta:
		if i+20 > len(b) {
			return 0, nil, fmt.Errorf("%w: bad delta base", errCorruptPack)
		}
		var base plumbing.Hash
		copy(base[:], b[i:i+20])
		baseOff, ok := p.find(base)
		if !ok {
			return 0, nil, errBaseOutside
		}
		return r.applyDelta(p, baseOff, b[i+20:], size, depth)
	}
	return 0, nil, fmt.Errorf("%w: unknown type %d", errCorruptPack, typ)
}

// applyDelta builds the object whose delta against the entry at baseOff
// is stored, compressed, in z.
func (r *objectReader) applyDelta(p *packFile, baseOff int64, z []byte, size uint64, depth int) (plumbing.ObjectType, []byte, error) {
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
		return 0, nil, fmt.Errorf("%w: %v", errCorruptPack, err)
	}
	return typ, data, nil
}

// inflate decompresses exactly size bytes from the zlib stream at z into
// dst (grown when too small).
func (r *objectReader) inflate(z []byte, size uint64, dst []byte) ([]byte, error) {
	if size > uint64(len(z))*1032+64 { // deflate expands at most ~1032:1
		return nil, fmt.Errorf("%w: size %d does not fit the pack", errCorruptPack, size)
	}
	if uint64(cap(dst)) < size {
		dst = make([]byte, size)
	}
	dst = dst[:size]
	r.src.Reset(z)
	if r.zr == nil {
		zr, err := zlib.NewReader(&r.src)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errCorruptPack, err)
		}
		r.zr = zr
	} else if err := r.zr.(zlib.Resetter).Reset(&r.src, nil); err != nil {
		return nil, fmt.Errorf("%w: %v", errCorruptPack, err)
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
		return fmt.Errorf("%w: more data than the header says", errCorruptPack)
	case err != io.EOF:
		return corrupt(err)
	}
	return nil
}

// corrupt marks err as a damaged object, once.
func corrupt(err error) error {
	if errors.Is(err, errCorruptPack) {
		return err
	}
	return fmt.Errorf("%w: %v", errCorruptPack, err)
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
