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
	if err != nil || len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return false
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return false
	}
	count := int(binary.BigEndian.Uint32(b[8:12]))
	end := len(b) - 20 // the checksum
	off := 12
	const fixed = 62 // times, stat data, id, flags
	for i := 0; i < count; i++ {
		if off+fixed > end {
			return false
		}
		flags := binary.BigEndian.Uint16(b[off+60 : off+62])
		name := off + fixed
		if flags&ceValid != 0 {
			return false
		}
		if flags&ceExtended != 0 {
			if version < 3 || name+2 > end || binary.BigEndian.Uint16(b[name:name+2])&ceSkipWorktree != 0 {
				return false
			}
			name += 2
		}
		if version == 4 {
			// A prefix length (a varint), then the rest of the name.
			for name < end && b[name]&0x80 != 0 {
				name++
			}
			name++
		}
		if name > end {
			return false
		}
		n := bytes.IndexByte(b[name:end], 0)
		if n < 0 {
			return false
		}
		if version == 4 {
			off = name + n + 1
		} else {
			off += (name - off + n + 8) &^ 7 // NUL-padded to a multiple of 8
		}
	}
	for off+8 <= end {
		sig := string(b[off : off+4])
		if sig == "link" || sig == "sdir" {
			return false
		}
		off += 8 + int(binary.BigEndian.Uint32(b[off+4:off+8]))
	}
	return off == end
}
