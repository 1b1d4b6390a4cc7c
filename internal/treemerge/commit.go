package treemerge

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/gitobj"
	"github.com/go-git/go-git/v5/plumbing"
)

// Merge returns the tree git merge-tree --write-tree writes for merging
// commit theirs into ours, or ErrUnsure when git must decide.
func (s *Store) Merge(ours, theirs plumbing.Hash) (plumbing.Hash, error) {
	base, err := s.MergeBase(ours, theirs)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	trees := [3]plumbing.Hash{}
	for i, id := range []plumbing.Hash{base, ours, theirs} {
		c, err := s.commit(id)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		trees[i] = c.tree
	}
	return s.MergeTrees(trees[0], trees[1], trees[2])
}

// Identity returns the header lines of commit id after its parents —
// author, committer and the encoding when there is one — so that more
// commits can be made exactly as git made that one. A commit with any
// other header (a signature) is ErrUnsure: it cannot be copied.
func (s *Store) Identity(id plumbing.Hash) (string, error) {
	body, err := s.read(id, plumbing.CommitObject)
	if err != nil {
		return "", err
	}
	header, _, _ := bytes.Cut(body, []byte("\n\n"))
	var out strings.Builder
	for _, line := range strings.Split(string(header), "\n") {
		key, _, _ := strings.Cut(line, " ")
		switch key {
		case "tree", "parent":
		case "author", "committer", "encoding":
			out.WriteString(line + "\n")
		default:
			return "", fmt.Errorf("%w: commit %s has a %q header", ErrUnsure, id, key)
		}
	}
	return out.String(), nil
}

// Commit makes a commit of tree with parents, the identity lines Identity
// returned and message, as git commit-tree -m makes it, and returns its
// id. It is written to the repository by the next Flush.
func (s *Store) Commit(tree plumbing.Hash, parents []plumbing.Hash, identity, message string) plumbing.Hash {
	var b strings.Builder
	b.WriteString("tree " + tree.String() + "\n")
	for _, p := range parents {
		b.WriteString("parent " + p.String() + "\n")
	}
	b.WriteString(identity)
	b.WriteString("\n")
	b.WriteString(message)
	if message != "" && !strings.HasSuffix(message, "\n") {
		b.WriteString("\n")
	}
	return s.add(gitobj.New(plumbing.CommitObject, []byte(b.String())))
}
