package worktree

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/gitobj"
)

// ceIntentToAdd marks an entry `git add -N` made, in the second flags
// word: git write-tree leaves it out.
const ceIntentToAdd = 0x2000

// stagedEntry is what a tree needs of an index entry.
type stagedEntry struct {
	name []byte
	mode uint32
	oid  [20]byte
}

// writeIndexTree writes the trees of the index file at index into the
// repository whose common dir is common, as git write-tree does, and
// returns the root tree's id. A state tree is verify's one sequential git
// process after `git add -A`; here it is one read of a file the same
// process just had git write, and the trees it did not have yet.
//
// ok is false for an index left to git: one walkIndex cannot read, an
// entry not at stage 0 (git refuses to write a conflict), one added with
// intent to add, a mode no tree holds, names out of order, or an index
// that is split or sparse. Only SHA-1 repositories reach here
// (checkRepository).
func writeIndexTree(common, index string) (tree string, ok bool, err error) {
	b, err := os.ReadFile(index)
	if err != nil {
		return "", false, err
	}
	entries, ok := treeEntries(b)
	if !ok {
		return "", false, nil
	}
	set := gitobj.OpenPackSet(common)
	defer set.Close()
	w := &treeWriter{have: gitobj.NewReader(set), to: gitobj.Writer{Dir: filepath.Join(common, "objects")}}
	defer w.have.Close()
	root, err := w.write(entries, 0)
	if err != nil {
		return "", false, err
	}
	return plumbing.Hash(root).String(), true, nil
}

// treeEntries reads the entries of index b, or says false (see
// writeIndexTree).
func treeEntries(b []byte) ([]stagedEntry, bool) {
	var entries []stagedEntry
	off, ok := walkIndex(b, func(at int, ext uint16, name []byte) bool {
		flags := binary.BigEndian.Uint16(b[at+60 : at+62])
		e := stagedEntry{name: name, mode: binary.BigEndian.Uint32(b[at+24 : at+28])}
		copy(e.oid[:], b[at+40:at+60])
		if flags&0x3000 != 0 || ext&ceIntentToAdd != 0 || treeMode(e.mode) == "" {
			return false
		}
		if n := len(entries); n > 0 && bytes.Compare(entries[n-1].name, name) >= 0 {
			return false
		}
		entries = append(entries, e)
		return true
	})
	if !ok {
		return nil, false
	}
	end := len(b) - 20
	for off+8 <= end {
		if sig := string(b[off : off+4]); sig == "link" || sig == "sdir" {
			return nil, false
		}
		off += 8 + int(binary.BigEndian.Uint32(b[off+4:off+8]))
	}
	return entries, off == end
}

// treeMode is how a tree writes an index entry's mode, or "" for one an
// index of git's never holds.
func treeMode(mode uint32) string {
	switch mode {
	case 0o100644, 0o100755, 0o120000, 0o160000:
		return strconv.FormatUint(uint64(mode), 8)
	}
	return ""
}

// treeWriter writes the trees the object directories do not hold yet.
type treeWriter struct {
	have *gitobj.Reader
	to   gitobj.Writer
}

// write writes the tree of entries, all under one directory whose name
// (with its slash) is the first depth bytes of each, and returns its id.
// The index is sorted by whole path, so a subdirectory's entries are
// consecutive and come where the subdirectory sorts in its tree (a
// directory sorts as its name and a slash).
func (w *treeWriter) write(entries []stagedEntry, depth int) ([20]byte, error) {
	var body []byte
	for i := 0; i < len(entries); {
		rest := entries[i].name[depth:]
		slash := bytes.IndexByte(rest, '/')
		if slash < 0 {
			body = append(body, treeMode(entries[i].mode)...)
			body = append(append(append(body, ' '), rest...), 0)
			body = append(body, entries[i].oid[:]...)
			i++
			continue
		}
		dir := entries[i].name[:depth+slash+1]
		j := i + 1
		for j < len(entries) && bytes.HasPrefix(entries[j].name, dir) {
			j++
		}
		sub, err := w.write(entries[i:j], len(dir))
		if err != nil {
			return sub, err
		}
		body = append(body, "40000 "...)
		body = append(append(body, rest[:slash]...), 0)
		body = append(body, sub[:]...)
		i = j
	}
	o := gitobj.New(plumbing.TreeObject, body)
	if !w.have.Has(plumbing.Hash(o.ID)) {
		if err := w.to.WriteLoose(o); err != nil {
			return o.ID, err
		}
	}
	return o.ID, nil
}
