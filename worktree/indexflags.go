package worktree

import (
	"bytes"
	"encoding/binary"
	"os"
)

// Index entry flags, as git's read-cache.c names them.
const (
	ceValid        = 0x8000 // assume-unchanged
	ceExtended     = 0x4000 // a second flags word follows (version 3 and up)
	ceSkipWorktree = 0x4000 // in the second word
)

// indexUnflagged reads an index file and reports whether git ls-files -v
// would find nothing to unflag: the file is an index this reading knows
// (versions 2 to 4), whole, no entry is marked assume-unchanged or
// skip-worktree, and it is neither split (its entries partly in a shared
// file) nor sparse. Saying false is always safe: the caller asks git.
func indexUnflagged(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	off, ok := walkIndex(b, func(at int, ext uint16, _ []byte) bool {
		return binary.BigEndian.Uint16(b[at+60:at+62])&ceValid == 0 && ext&ceSkipWorktree == 0
	})
	if !ok {
		return false
	}
	end := len(b) - 20
	for off+8 <= end {
		sig := string(b[off : off+4])
		if sig == "link" || sig == "sdir" {
			return false
		}
		off += 8 + int(binary.BigEndian.Uint32(b[off+4:off+8]))
	}
	return off == end
}

// indexEntryFixed is the fixed part of an index entry: times, stat data,
// object id and flags.
const indexEntryFixed = 62

// walkIndex calls each with every entry of index b (versions 2 to 4): the
// offset of its fixed part, its second flags word (0 without one) and its
// whole name (version 4 names rebuilt from the previous one), until each
// says false.
// It returns where the extensions start, and false when b is not an index
// this reading knows, or each stopped.
func walkIndex(b []byte, each func(at int, ext uint16, name []byte) bool) (int, bool) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return 0, false
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return 0, false
	}
	count := int(binary.BigEndian.Uint32(b[8:12]))
	end := len(b) - 20 // the checksum
	var prev []byte    // version 4 names are the previous name's prefix and a rest
	off := 12
	for i := 0; i < count; i++ {
		if off+indexEntryFixed > end {
			return 0, false
		}
		at := off + indexEntryFixed
		var ext uint16
		if binary.BigEndian.Uint16(b[off+60:off+62])&ceExtended != 0 {
			if version < 3 || at+2 > end {
				return 0, false
			}
			ext = binary.BigEndian.Uint16(b[at : at+2])
			at += 2
		}
		var name []byte
		if version == 4 {
			strip, n := gitVarint(b[at:end])
			if n == 0 || strip > uint64(len(prev)) {
				return 0, false
			}
			at += n
			rest := bytes.IndexByte(b[at:end], 0)
			if rest < 0 {
				return 0, false
			}
			name = append(bytes.Clone(prev[:len(prev)-int(strip)]), b[at:at+rest]...)
			prev, at = name, at+rest+1
		} else {
			n := bytes.IndexByte(b[at:end], 0)
			if n < 0 {
				return 0, false
			}
			name = b[at : at+n]
			at = off + (at-off+n+8)&^7 // NUL-padded to a multiple of 8
		}
		if !each(off, ext, name) {
			return 0, false
		}
		off = at
	}
	return off, true
}

// gitVarint decodes git's offset varint (varint.c), which differs from
// encoding/binary's past one byte; n is 0 when b ends inside it.
func gitVarint(b []byte) (val uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val, n = uint64(c&127), 1
	for c&128 != 0 {
		if n >= len(b) || val > 1<<56 {
			return 0, 0
		}
		c = b[n]
		n++
		val = (val+1)<<7 | uint64(c&127)
	}
	return val, n
}
