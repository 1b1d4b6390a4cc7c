package gitrepo

import (
	"errors"
	"fmt"
	"strings"
)

// The typed calls below are the git questions the rest of the code asks
// again and again: one place words them (the --verify, --quiet and
// --end-of-options every caller needs, the ^{commit} peel) and says what
// an answer of "no" looks like.

// ErrNoCommit is returned by Commit for a revision that names no commit.
var ErrNoCommit = errors.New("no such commit")

// ErrNoObject is returned by Object and Tree for a revision that names
// no object (of the kind asked for).
var ErrNoObject = errors.New("no such object")

// Commit resolves rev to the id of the commit it names (tags and refs
// peeled), or an error that is ErrNoCommit and names rev. A revision
// starting with "-" names nothing: it would be read as an option.
func (r *Repo) Commit(rev string) (string, error) {
	if id, ok := r.storedCommitID(rev); ok {
		return id, nil
	}
	return r.resolve(rev, "^{commit}", ErrNoCommit)
}

// Object resolves rev (a ref, an id, "REV:PATH", ...) to the id of the
// object it names, of any type, or an error that is ErrNoObject.
func (r *Repo) Object(rev string) (string, error) {
	return r.resolve(rev, "", ErrNoObject)
}

// Tree resolves rev to the id of its tree (a commit's, a tag's, or rev
// itself when it is a tree), or an error that is ErrNoObject. A rev that
// names an object of another kind (a blob) is git's error, naming it, as
// it is for Commit.
func (r *Repo) Tree(rev string) (string, error) {
	if id, ok := r.storedTreeID(rev); ok {
		return id, nil
	}
	return r.resolve(rev, "^{tree}", ErrNoObject)
}

// resolve asks rev-parse for rev+peel. git says nothing on stderr when
// the revision merely names nothing; anything it does say is another
// failure and is returned as it is.
func (r *Repo) resolve(rev, peel string, none error) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%w: %q", none, rev)
	}
	out, err := r.Git("rev-parse", "--verify", "--quiet", "--end-of-options", rev+peel)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
			return "", fmt.Errorf("%w: %q", none, rev)
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
