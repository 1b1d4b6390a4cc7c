package gitobj

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// PackSet reads objects straight out of the memory-mapped pack files and
// the loose objects of the repository and of the stores it borrows from.
// go-git's object storage copies every object through a growing buffer,
// hashes it and caches it; for a checkout of thousands of blobs that work
// cost more than inflating them. Objects found nowhere here (an index
// version we do not read, a delta against an object outside its pack) are
// left to go-git: lookups answer found=false and the caller falls back.
type PackSet struct {
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

// OpenPackSet maps every pack of the repository and of the object stores
// it borrows from (objects/info/alternates) that has a version-2 index.
// Packs it cannot use are skipped; go-git serves their objects.
func OpenPackSet(common string) *PackSet {
	set := &PackSet{dirs: objectDirs(filepath.Join(common, "objects"))}
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

// Close releases the mappings of the packs.
func (s *PackSet) Close() {
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

// header parses the type and size of the entry at off and returns how
// many bytes the header takes.
func (p *packFile) header(off int64) (plumbing.ObjectType, uint64, int, error) {
	if off < 12 || off >= int64(len(p.data)) {
		return 0, 0, 0, fmt.Errorf("%w: offset out of range", ErrCorrupt)
	}
	b := p.data[off:]
	c := b[0]
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := uint64(c & 15)
	i := 1
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if i >= len(b) || shift > 56 {
			return 0, 0, 0, fmt.Errorf("%w: bad header", ErrCorrupt)
		}
		c = b[i]
		size |= uint64(c&0x7f) << shift
		i++
	}
	return typ, size, i, nil
}
