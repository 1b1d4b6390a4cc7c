package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// treePlan is the whole content of a commit's tree, every entry checked
// against git's tree rules before a single file is written.
type treePlan struct {
	tree  plumbing.Hash
	files []treeEntry // files, symlinks and gitlinks, in git's order
	// attrFiles are the .gitattributes files of the tree.
	attrFiles []treeEntry
	gitlinks  int
}

// planTree reads the tree of commit and every tree under it, refusing any
// entry git would refuse (see parseTree); a refusal names the entry's path.
func planTree(st *packStorer, commit plumbing.Hash) (*treePlan, error) {
	tree, err := st.commitTree(commit)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", commit, err)
	}
	p := &treePlan{tree: tree}
	if err := p.walk(st, tree, ""); err != nil {
		var bad *badEntryError
		if errors.As(err, &bad) {
			return nil, unsafeTree("%s", bad.Error())
		}
		return nil, err
	}
	return p, nil
}

// maxTreeDepth bounds nesting, as git's core.maxTreeDepth does (its
// default is 4096 in newer versions; no real tree comes near).
const maxTreeDepth = 2048

func (p *treePlan) walk(st *packStorer, h plumbing.Hash, dir string) error {
	if len(dir) > 0 && countSlashes(dir) >= maxTreeDepth {
		return &badEntryError{name: dir, problem: "trees nested deeper than " + fmt.Sprint(maxTreeDepth)}
	}
	data, err := st.rawTree(h)
	if err != nil {
		return fmt.Errorf("reading tree %s (%s): %w", h, displayDir(dir), err)
	}
	entries, err := parseTree(data)
	if err != nil {
		var bad *badEntryError
		if errors.As(err, &bad) {
			bad.name = dir + bad.name
			return bad
		}
		return fmt.Errorf("tree %s (%s): %w", h, displayDir(dir), err)
	}
	for _, e := range entries {
		name := dir + e.name
		hash := plumbing.Hash(e.hash)
		if e.mode == filemode.Dir {
			if err := p.walk(st, hash, name+"/"); err != nil {
				return err
			}
			continue
		}
		te := treeEntry{path: name, hash: hash, mode: e.mode}
		if e.mode == filemode.Submodule {
			p.gitlinks++
		}
		if e.name == ".gitattributes" {
			p.attrFiles = append(p.attrFiles, te)
		}
		p.files = append(p.files, te)
	}
	return nil
}

func countSlashes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			n++
		}
	}
	return n
}

func displayDir(dir string) string {
	if dir == "" {
		return "the top"
	}
	return dir
}

// commitTree returns the tree of commit h, read and checked as go-git's
// commit decoder does (object.GetCommit), which this replaces: linking
// go-git's object model and its OpenPGP code cost every command's start-up
// half a millisecond.
func (s *packStorer) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	obj, err := s.EncodedObject(plumbing.CommitObject, h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return commitTreeOf(obj)
}

var (
	errMalformedCommit   = errors.New("malformed commit")
	errUnsupportedObject = errors.New("unsupported object type")
)

// commitTreeOf reads a commit's tree line. As go-git's decoder, it refuses
// a commit whose first header is not a tree with a full hash, or whose
// parent lines (those right after the tree) hold anything but a hash; the
// headers after them cannot make decoding fail.
func commitTreeOf(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	if obj.Type() != plumbing.CommitObject {
		return plumbing.ZeroHash, errUnsupportedObject
	}
	rd, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	data, err := io.ReadAll(rd)
	rd.Close()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	line, data := nextLine(data)
	if len(line) == 0 || string(line) == "\n" {
		return plumbing.ZeroHash, fmt.Errorf("%w: missing tree header", errMalformedCommit)
	}
	key, value, _ := bytes.Cut(bytes.TrimRight(line, "\n"), []byte{' '})
	if string(key) != "tree" {
		return plumbing.ZeroHash, fmt.Errorf("%w: tree header must be first", errMalformedCommit)
	}
	if !plumbing.IsHash(string(value)) {
		return plumbing.ZeroHash, fmt.Errorf("%w: bad tree hash", errMalformedCommit)
	}
	tree := plumbing.NewHash(string(value))
	for {
		line, data = nextLine(data)
		key, value, _ := bytes.Cut(bytes.TrimRight(line, "\n"), []byte{' '})
		if len(line) == 0 || string(line) == "\n" || string(key) != "parent" {
			return tree, nil
		}
		if !plumbing.IsHash(string(value)) {
			return plumbing.ZeroHash, fmt.Errorf("%w: bad parent hash", errMalformedCommit)
		}
	}
}

// nextLine splits off data's first line, its newline included.
func nextLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i+1], data[i+1:]
	}
	return data, nil
}

// rawTree returns the stored bytes of tree h.
func (s *packStorer) rawTree(h plumbing.Hash) ([]byte, error) {
	typ, data, found, err := s.r.Read(h, nil)
	if err != nil {
		return nil, err
	}
	if !found {
		obj, err := s.Storage.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return nil, err
		}
		typ = obj.Type()
		rd, err := obj.Reader()
		if err != nil {
			return nil, err
		}
		data, err = io.ReadAll(rd)
		rd.Close()
		if err != nil {
			return nil, err
		}
	}
	if typ != plumbing.TreeObject {
		return nil, fmt.Errorf("object %s is a %s, not a tree", h, typ)
	}
	return data, nil
}
