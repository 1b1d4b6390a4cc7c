package gitrepo

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/gitobj"
	"github.com/agentproto/agentproto/internal/gitref"
)

// The typed reads answer from the stored objects and ref files when that
// is certainly git's answer, without a git process: each costs a few
// milliseconds, and one dispatch and checkpoint of a work package asked
// some fifteen such questions. Whatever these readers are not sure of —
// a revision other than HEAD, a full ref name or an object id; history
// git rewrites on the fly (replace refs, grafts, a shallow clone); a
// symbolic or broken ref; an object missing (a partial clone fetches it);
// a tag to peel — is left to git, and so is every error, so answers and
// error messages stay git's.

// stored opens a reader of the repository's objects; ok is false when git
// would not read the history as it is stored.
func (r *Repo) stored() (rd *gitobj.Reader, done func(), ok bool) {
	if gitobj.RewritesHistory(r.CommonDir) {
		return nil, nil, false
	}
	packs := gitobj.OpenPackSet(r.CommonDir)
	rd = gitobj.NewReader(packs)
	return rd, func() { rd.Close(); packs.Close() }, true
}

// readStored returns a copy of object id when it is stored whole as type
// want.
func readStored(rd *gitobj.Reader, id plumbing.Hash, want plumbing.ObjectType) ([]byte, bool) {
	typ, data, found, err := rd.Read(id, nil)
	if err != nil || !found || typ != want {
		return nil, false
	}
	return bytes.Clone(data), true
}

// parseID reads a full lowercase object id, as git prints them.
func parseID(s string) (plumbing.Hash, bool) {
	var h plumbing.Hash
	if len(s) != 2*len(h) || strings.ToLower(s) != s {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}

// perWorktree says whether a ref lives in each worktree's own git dir.
func perWorktree(name string) bool {
	for _, p := range []string{"refs/worktree/", "refs/bisect/", "refs/rewritten/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// storedRef reads HEAD or a full ref name from the ref files.
func (r *Repo) storedRef(name string) (plumbing.Hash, bool) {
	if name == "HEAD" {
		b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
		if err != nil {
			return plumbing.Hash{}, false
		}
		target, symbolic := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
		if !symbolic {
			return parseID(target)
		}
		name = target
	}
	if !strings.HasPrefix(name, "refs/") || perWorktree(name) || !gitref.ValidRefName(name) {
		return plumbing.Hash{}, false
	}
	id, err := gitref.Store{Common: r.CommonDir}.Read(name)
	if err != nil || id == "" {
		return plumbing.Hash{}, false
	}
	return parseID(id)
}

// storedCommit resolves rev (HEAD, a full ref name, a full id) to a
// commit stored as one.
func (r *Repo) storedCommit(rd *gitobj.Reader, rev string) (plumbing.Hash, []byte, bool) {
	id, ok := parseID(rev)
	if !ok {
		if id, ok = r.storedRef(rev); !ok {
			return id, nil, false
		}
	}
	body, ok := readStored(rd, id, plumbing.CommitObject)
	return id, body, ok
}

// storedTreeOf returns the tree of a commit or a tree named by rev.
func (r *Repo) storedTreeOf(rd *gitobj.Reader, rev string) (plumbing.Hash, bool) {
	id, ok := parseID(rev)
	if !ok {
		if id, ok = r.storedRef(rev); !ok {
			return id, false
		}
	}
	typ, data, found, err := rd.Read(id, nil)
	if err != nil || !found {
		return id, false
	}
	switch typ {
	case plumbing.TreeObject:
		return id, true
	case plumbing.CommitObject:
		line, _, _ := bytes.Cut(data, []byte{'\n'})
		if tree, ok := bytes.CutPrefix(line, []byte("tree ")); ok {
			return parseID(string(tree))
		}
	}
	return id, false
}

// treeEntry is one entry of a tree object, its mode as git reads it.
type treeEntry struct {
	mode uint32
	name string
	id   plumbing.Hash
}

func (e treeEntry) isDir() bool { return e.mode == 0o40000 }

// storedTree reads and decodes tree id.
func storedTree(rd *gitobj.Reader, id plumbing.Hash) ([]treeEntry, bool) {
	data, ok := readStored(rd, id, plumbing.TreeObject)
	if !ok {
		return nil, false
	}
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp || len(data) < nul+1+len(plumbing.Hash{}) {
			return nil, false
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, false
		}
		e := treeEntry{mode: canonMode(uint32(mode)), name: string(data[sp+1 : nul])}
		copy(e.id[:], data[nul+1:])
		out = append(out, e)
		data = data[nul+1+len(e.id):]
	}
	return out, true
}

// canonMode is the mode git gives a tree entry when it reads it (git's
// canon_mode): old trees may store others.
func canonMode(mode uint32) uint32 {
	switch mode & 0o170000 {
	case 0o100000:
		if mode&0o100 != 0 {
			return 0o100755
		}
		return 0o100644
	case 0o120000:
		return 0o120000
	case 0o40000:
		return 0o40000
	}
	return 0o160000
}

// typeOf names what a tree entry points at, as git ls-tree does.
func typeOf(mode uint32) string {
	switch mode {
	case 0o40000:
		return "tree"
	case 0o160000:
		return "commit"
	}
	return "blob"
}

// storedBlob reads path in the tree of rev.
func (r *Repo) storedBlob(rev, path string) ([]byte, bool) {
	rd, done, ok := r.stored()
	if !ok {
		return nil, false
	}
	defer done()
	tree, ok := r.storedTreeOf(rd, rev)
	if !ok {
		return nil, false
	}
	parts := strings.Split(path, "/")
	for i, part := range parts {
		if part == "" || part == "." || part == ".." {
			return nil, false // git's to read (relative paths) or to refuse
		}
		entries, ok := storedTree(rd, tree)
		if !ok {
			return nil, false
		}
		found := false
		for _, e := range entries {
			if e.name != part {
				continue
			}
			last := i == len(parts)-1
			if last != !e.isDir() || e.mode == 0o160000 {
				return nil, false
			}
			if last {
				return readStored(rd, e.id, plumbing.BlobObject)
			}
			tree, found = e.id, true
			break
		}
		if !found {
			return nil, false
		}
	}
	return nil, false
}

// storedBlobByID reads blob id.
func (r *Repo) storedBlobByID(id string) ([]byte, bool) {
	h, ok := parseID(id)
	if !ok {
		return nil, false
	}
	rd, done, ok := r.stored()
	if !ok {
		return nil, false
	}
	defer done()
	return readStored(rd, h, plumbing.BlobObject)
}

// storedCommitID resolves rev to a commit, as rev-parse rev^{commit}.
func (r *Repo) storedCommitID(rev string) (string, bool) {
	rd, done, ok := r.stored()
	if !ok {
		return "", false
	}
	defer done()
	id, _, ok := r.storedCommit(rd, rev)
	return id.String(), ok
}

// storedTreeID resolves rev to its tree, as rev-parse rev^{tree}.
func (r *Repo) storedTreeID(rev string) (string, bool) {
	rd, done, ok := r.stored()
	if !ok {
		return "", false
	}
	defer done()
	id, ok := r.storedTreeOf(rd, rev)
	return id.String(), ok
}
