package gitrepo

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/gitobj"
	"github.com/agentproto/agentproto/internal/gitref"
)

// storedListTree lists every file of rev's tree, as git ls-tree -r.
func (r *Repo) storedListTree(rev string) ([]TreeEntry, bool) {
	rd, done, ok := r.stored()
	if !ok {
		return nil, false
	}
	defer done()
	tree, ok := r.storedTreeOf(rd, rev)
	if !ok {
		return nil, false
	}
	var out []TreeEntry
	var walk func(id plumbing.Hash, prefix string) bool
	walk = func(id plumbing.Hash, prefix string) bool {
		entries, ok := storedTree(rd, id)
		if !ok {
			return false
		}
		for _, e := range entries {
			if e.isDir() {
				if !walk(e.id, prefix+e.name+"/") {
					return false
				}
				continue
			}
			out = append(out, TreeEntry{Mode: fmt.Sprintf("%06o", e.mode), Type: typeOf(e.mode), ID: e.id.String(), Path: prefix + e.name})
		}
		return true
	}
	if !walk(tree, "") {
		return nil, false
	}
	return out, true
}

// storedDiff lists the files that differ between two trees (or the trees
// of two commits) in the order git diff-tree -r --name-only lists them.
// A changed submodule is left to git, whose configuration may ignore it.
func (r *Repo) storedDiff(from, to string) ([]string, bool) {
	rd, done, ok := r.stored()
	if !ok {
		return nil, false
	}
	defer done()
	a, okA := r.storedTreeOf(rd, from)
	b, okB := r.storedTreeOf(rd, to)
	if !okA || !okB {
		return nil, false
	}
	var out []string
	if !diffTrees(rd, a, b, "", &out) {
		return nil, false
	}
	return out, true
}

// diffTrees walks two trees side by side in git's order, where a
// directory sorts as its name with a "/" after it.
func diffTrees(rd *gitobj.Reader, a, b plumbing.Hash, prefix string, out *[]string) bool {
	if a == b {
		return true
	}
	var ea, eb []treeEntry
	var ok bool
	if !a.IsZero() {
		if ea, ok = storedTree(rd, a); !ok {
			return false
		}
	}
	if !b.IsZero() {
		if eb, ok = storedTree(rd, b); !ok {
			return false
		}
	}
	// one reports an entry present on one side only.
	one := func(e treeEntry, left bool) bool {
		switch {
		case e.mode == 0o160000:
			return false
		case !e.isDir():
			*out = append(*out, prefix+e.name)
			return true
		case left:
			return diffTrees(rd, e.id, plumbing.ZeroHash, prefix+e.name+"/", out)
		}
		return diffTrees(rd, plumbing.ZeroHash, e.id, prefix+e.name+"/", out)
	}
	for len(ea) > 0 || len(eb) > 0 {
		var c int
		switch {
		case len(ea) == 0:
			c = 1
		case len(eb) == 0:
			c = -1
		default:
			c = strings.Compare(sortName(ea[0]), sortName(eb[0]))
		}
		switch {
		case c < 0:
			if !one(ea[0], true) {
				return false
			}
			ea = ea[1:]
		case c > 0:
			if !one(eb[0], false) {
				return false
			}
			eb = eb[1:]
		default:
			x, y := ea[0], eb[0]
			ea, eb = ea[1:], eb[1:]
			switch {
			case x.id == y.id && x.mode == y.mode:
			case x.mode == 0o160000 || y.mode == 0o160000:
				return false
			case x.isDir():
				if !diffTrees(rd, x.id, y.id, prefix+x.name+"/", out) {
					return false
				}
			default:
				*out = append(*out, prefix+x.name)
			}
		}
	}
	return true
}

// sortName is the name git sorts a tree entry by.
func sortName(e treeEntry) string {
	if e.isDir() {
		return e.name + "/"
	}
	return e.name
}

// storedRefs lists the refs under patterns as for-each-ref does, when
// every pattern is a full ref name or a prefix of whole components
// without glob characters, every ref is a plain, well-named one and its
// object is stored.
func (r *Repo) storedRefs(patterns []string, but string) ([]Ref, bool) {
	if len(patterns) == 0 {
		return nil, false
	}
	rd, done, ok := r.stored()
	if !ok {
		return nil, false
	}
	defer done()
	store := gitref.Store{Common: r.CommonDir}
	found := map[string]string{}
	for _, p := range patterns {
		p = strings.TrimSuffix(p, "/")
		if !strings.HasPrefix(p, "refs/") || strings.ContainsAny(p, "*?[\\") || perWorktree(p+"/") || !gitref.ValidRefName(p) {
			return nil, false
		}
		under, broken, err := store.ListAllBut(p+"/", but)
		if err != nil || len(broken) > 0 {
			return nil, false
		}
		for name, id := range under {
			found[name] = id
		}
		id, err := store.Read(p)
		if err != nil {
			return nil, false
		}
		if id != "" {
			found[p] = id
		}
	}
	refs := make([]Ref, 0, len(found))
	for name, id := range found {
		h, ok := parseID(id)
		if !ok || !gitref.ValidRefName(name) || perWorktree(name) || !rd.Has(h) {
			return nil, false
		}
		refs = append(refs, Ref{Name: name, ID: id})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, true
}
