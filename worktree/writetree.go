package worktree

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"time"

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
// intent to add, a mode no tree holds, names out of order, a cached tree
// with a valid directory (git reuses its id), or an extension git must
// understand (split, sparse). The index the checkout wrote has no cached tree, so the state
// tree of a worktree at its checkout's commit is written here; one the
// agent committed in is read from HEAD by git and goes to git. Only SHA-1
// repositories reach here (checkRepository).
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
		// A cached tree (TREE) is what git write-tree answers with for the
		// directories it covers, whatever their entries would write: a
		// tree of HEAD's that git would not write the same way today (a
		// mode 100664, a zero-padded 040000) keeps its id there. A
		// lowercase signature is an extension git must understand (link:
		// split, sdir: sparse).
		size := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		if off+8+size > end {
			return nil, false
		}
		sig := b[off : off+4]
		if 'a' <= sig[0] && sig[0] <= 'z' || string(sig) == "TREE" && !allInvalid(b[off+8:off+8+size]) {
			return nil, false
		}
		off += 8 + size
	}
	return entries, off == end
}

// allInvalid says whether a cached tree (TREE extension) holds no valid
// directory: each is its name, a NUL, its entry count ("-1" once a change
// under it invalidated it), a space, its subtree count, a newline and, when
// valid, its id. What does not read counts as valid.
func allInvalid(ext []byte) bool {
	for len(ext) > 0 {
		nul := bytes.IndexByte(ext, 0)
		if nul < 0 {
			return false
		}
		ext = ext[nul+1:]
		nl := bytes.IndexByte(ext, '\n')
		if nl < 0 {
			return false
		}
		count, _, ok := bytes.Cut(ext[:nl], []byte{' '})
		if !ok || string(count) != "-1" {
			return false
		}
		ext = ext[nl+1:]
	}
	return true
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
	// A tree there already is freshened, as git does, so that a prune
	// does not take an unreferenced one (an earlier verify's) from under
	// the checkpoint about to commit it.
	hex := o.Hex()
	loose := filepath.Join(w.to.Dir, hex[:2], hex[2:])
	now := time.Now()
	if err := os.Chtimes(loose, now, now); err == nil || w.have.Has(plumbing.Hash(o.ID)) {
		return o.ID, nil
	}
	return o.ID, w.to.WriteLoose(o)
}
