package gitrepo

import (
	"errors"
	"strings"
)

// The typed calls below are the git questions the rest of the code asks
// again and again: one place words them (the --verify, --quiet and
// --end-of-options every caller needs, the ^{commit} peel) and says what
// an answer of "no" looks like.

// ErrNoCommit is returned by Commit for a revision that names no commit.
var ErrNoCommit = errors.New("no such commit")

// Commit resolves rev to the id of the commit it names (tags and refs
// peeled), or ErrNoCommit. A revision starting with "-" names nothing:
// it would be read as an option.
func (r *Repo) Commit(rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", ErrNoCommit
	}
	out, err := r.Git("rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
			return "", ErrNoCommit
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// HasCommit reports whether rev names a commit.
func (r *Repo) HasCommit(rev string) bool {
	_, err := r.Commit(rev)
	return err == nil
}

// IsAncestor reports whether commit a is an ancestor of (or equal to)
// commit b; an error of git's counts as no.
func (r *Repo) IsAncestor(a, b string) bool {
	_, err := r.Git("merge-base", "--is-ancestor", a, b)
	return err == nil
}

// MergeBase returns the best common ancestor of a and b.
func (r *Repo) MergeBase(a, b string) (string, error) {
	out, err := r.Git("merge-base", a, b)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Blob returns the content of path in the tree of rev (rev:path).
func (r *Repo) Blob(rev, path string) ([]byte, error) {
	return r.Git("cat-file", "blob", rev+":"+path)
}

// UpdateRef moves ref to newID if it points at oldID ("" when it must
// not exist yet), as one compare-and-swap.
func (r *Repo) UpdateRef(ref, newID, oldID string) error {
	if oldID == "" {
		oldID = strings.Repeat("0", len(newID))
	}
	_, err := r.Git("update-ref", ref, newID, oldID)
	return err
}
