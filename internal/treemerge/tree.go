package treemerge

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"

	"github.com/agentproto/agentproto/internal/gitobj"
	"github.com/go-git/go-git/v5/plumbing"
)

// The modes git writes in trees. Trees holding any other (100664, zero
// padded) were written by old tools; git rewrites those when it merges,
// so they are left to it.
const (
	modeTree    = 0o40000
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeLink    = 0o120000
	modeGitlink = 0o160000
)

var emptyTree = plumbing.NewHash(gitobj.EmptyTree)

// entry is one line of a tree.
type entry struct {
	name string
	mode uint32
	id   plumbing.Hash
}

func (e *entry) isTree() bool { return e.mode == modeTree }

// sameEntry reports whether a path is the same in two trees; nil is absent.
func sameEntry(a, b *entry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.mode == b.mode && a.id == b.id
}

// MergeTrees merges the trees ours and theirs, both made from base (zero:
// the empty tree). A path that only one side changed takes that side; a
// directory both changed is merged entry by entry; anything else — a
// path both changed, even alike, a directory one removed or turned into a
// file while the other changed it — is ErrUnsure, for git to judge with
// its rename and content merges. What is merged here is what git's merge
// would give: it too takes a path changed on one side as that side has it.
func (s *Store) MergeTrees(base, ours, theirs plumbing.Hash) (plumbing.Hash, error) {
	switch {
	case s.unsure:
		return plumbing.ZeroHash, ErrUnsure
	case ours == base:
		return theirs, nil
	case theirs == base:
		return ours, nil
	case ours == theirs:
		return plumbing.ZeroHash, ErrUnsure
	}
	sides := [3]plumbing.Hash{base, ours, theirs}
	byName := map[string]*[3]*entry{}
	var names []string
	for side, id := range sides {
		if id.IsZero() {
			continue
		}
		entries, err := s.tree(id)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		for i := range entries {
			e := &entries[i]
			at, ok := byName[e.name]
			if !ok {
				at = &[3]*entry{}
				byName[e.name] = at
				names = append(names, e.name)
			} else if at[side] != nil {
				return plumbing.ZeroHash, fmt.Errorf("%w: tree %s names %q twice", ErrUnsure, id, e.name)
			}
			at[side] = e
		}
	}
	out := make([]entry, 0, len(names))
	for _, name := range names {
		b, o, t := byName[name][0], byName[name][1], byName[name][2]
		switch {
		case sameEntry(o, b):
			if t != nil {
				out = append(out, *t)
			}
		case sameEntry(t, b):
			if o != nil {
				out = append(out, *o)
			}
		case o != nil && t != nil && o.isTree() && t.isTree() && (b == nil || b.isTree()):
			var bid plumbing.Hash
			if b != nil {
				bid = b.id
			}
			sub, err := s.MergeTrees(bid, o.id, t.id)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if sub != emptyTree { // git keeps no empty directory
				out = append(out, entry{name: name, mode: modeTree, id: sub})
			}
		default:
			return plumbing.ZeroHash, ErrUnsure
		}
	}
	return s.writeTree(out), nil
}

// tree returns the entries of tree id.
func (s *Store) tree(id plumbing.Hash) ([]entry, error) {
	if entries, ok := s.trees[id]; ok {
		return entries, nil
	}
	body, err := s.read(id, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	var entries []entry
	for len(body) > 0 {
		sp := bytes.IndexByte(body, ' ')
		nul := bytes.IndexByte(body, 0)
		if sp < 0 || nul < sp || nul+21 > len(body) {
			return nil, fmt.Errorf("%w: tree %s is malformed", ErrUnsure, id)
		}
		mode, err := canonicalMode(body[:sp])
		if err != nil {
			return nil, err
		}
		e := entry{name: string(body[sp+1 : nul]), mode: mode}
		copy(e.id[:], body[nul+1:nul+21])
		entries = append(entries, e)
		body = body[nul+21:]
	}
	s.trees[id] = entries
	return entries, nil
}

// canonicalMode parses a mode as git writes it today.
func canonicalMode(text []byte) (uint32, error) {
	m, err := strconv.ParseUint(string(text), 8, 32)
	if err == nil && text[0] != '0' {
		switch m {
		case modeTree, modeFile, modeExec, modeLink, modeGitlink:
			return uint32(m), nil
		}
	}
	return 0, fmt.Errorf("%w: tree mode %q", ErrUnsure, text)
}

// writeTree makes the tree of entries, in git's order: by name, a
// directory's name compared as if it ended in a slash.
func (s *Store) writeTree(entries []entry) plumbing.Hash {
	sort.Slice(entries, func(i, j int) bool { return treeLess(&entries[i], &entries[j]) })
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(strconv.FormatUint(uint64(e.mode), 8))
		b.WriteByte(' ')
		b.WriteString(e.name)
		b.WriteByte(0)
		b.Write(e.id[:])
	}
	h := s.add(gitobj.New(plumbing.TreeObject, b.Bytes()))
	s.trees[h] = entries
	return h
}

func treeLess(a, b *entry) bool {
	n := min(len(a.name), len(b.name))
	if c := a.name[:n]; c != b.name[:n] {
		return c < b.name[:n]
	}
	return nameEnd(a, n) < nameEnd(b, n)
}

// nameEnd is the byte git compares after the common prefix of two names.
func nameEnd(e *entry, n int) byte {
	switch {
	case n < len(e.name):
		return e.name[n]
	case e.isTree():
		return '/'
	}
	return 0
}
