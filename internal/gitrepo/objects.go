package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Blob returns the content of path in the tree of rev (rev:path).
func (r *Repo) Blob(rev, path string) ([]byte, error) {
	if b, ok := r.storedBlob(rev, path); ok {
		return b, nil
	}
	return r.Git("cat-file", "blob", rev+":"+path)
}

// StoredAtHead reports whether path is a file in HEAD's tree, answered
// from the stored objects without git; false when it is not, and when
// only git could tell.
func (r *Repo) StoredAtHead(path string) bool {
	_, ok := r.storedBlob("HEAD", path)
	return ok
}

// BlobByID returns the content of the blob with id (an attachment, a
// file a tree listing named).
func (r *Repo) BlobByID(id string) ([]byte, error) {
	if b, ok := r.storedBlobByID(id); ok {
		return b, nil
	}
	return r.Git("cat-file", "blob", id)
}

// ObjectType returns the type of the object rev names ("blob", "tree",
// "commit", "tag"); an error naming rev when it names none.
func (r *Repo) ObjectType(rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%w: %q", ErrNoObject, rev)
	}
	out, err := r.Git("cat-file", "-t", rev)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// TreeEntry is one entry of a tree listing.
type TreeEntry struct {
	Mode string // "100644", "100755", "120000" (symlink), "160000" (submodule)
	Type string // "blob", or "commit" for a submodule
	ID   string
	Path string // from the top of the tree, slash-separated, as git stores it
}

// IsSymlink says whether the entry is a symbolic link, whose blob holds
// the link's target.
func (e TreeEntry) IsSymlink() bool { return e.Mode == "120000" }

// ListTree lists every file of rev's tree, recursively (subtrees are
// walked, not listed), from the top whatever the working directory.
func (r *Repo) ListTree(rev string) ([]TreeEntry, error) {
	if entries, ok := r.storedListTree(rev); ok {
		return entries, nil
	}
	out, err := r.Git("ls-tree", "-r", "-z", "--full-tree", "--end-of-options", rev)
	if err != nil {
		return nil, err
	}
	var entries []TreeEntry
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 {
			continue
		}
		entries = append(entries, TreeEntry{Mode: f[0], Type: f[1], ID: f[2], Path: path})
	}
	return entries, nil
}

// CommitInfo is what a commit records.
type CommitInfo struct {
	ID      string
	Tree    string
	Parents []string
	Message string // the raw message, as git stores it
}

// commitFormat and parseCommits go together: one record per commit, its
// ids on the first line and the message after.
const commitFormat = "--format=%H %T %P%n%B"

func parseCommits(out []byte) []CommitInfo {
	var commits []CommitInfo
	for _, rec := range bytes.Split(out, []byte{0}) {
		rec = bytes.TrimLeft(rec, "\n")
		head, msg, ok := bytes.Cut(rec, []byte{'\n'})
		f := strings.Fields(string(head))
		if !ok || len(f) < 2 {
			continue
		}
		commits = append(commits, CommitInfo{ID: f[0], Tree: f[1], Parents: f[2:], Message: string(msg)})
	}
	return commits
}

// ReadCommit returns the commit rev names, peeled from a tag or ref.
func (r *Repo) ReadCommit(rev string) (*CommitInfo, error) {
	out, err := r.Git("log", "-1", "-z", commitFormat, "--end-of-options", rev)
	if err != nil {
		return nil, err
	}
	commits := parseCommits(out)
	if len(commits) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrNoCommit, rev)
	}
	return &commits[0], nil
}

// Log returns the commits of revisions (a revision, "A..B", "^A B"),
// newest first as git log lists them: reverse the slice for --reverse.
func (r *Repo) Log(revisions ...string) ([]CommitInfo, error) {
	if len(revisions) == 1 {
		if commits, ok := r.storedRange(revisions[0]); ok {
			return commits, nil
		}
	}
	out, err := r.Git(append([]string{"log", "-z", commitFormat, "--end-of-options"}, revisions...)...)
	if err != nil {
		return nil, err
	}
	return parseCommits(out), nil
}

// CommitTree writes a commit of tree (any tree-ish) on parents with
// message, with git's usual identity, and returns its id. No ref moves.
func (r *Repo) CommitTree(tree string, parents []string, message string) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := r.Git(append(args, "-m", message)...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// DiffTree lists the files that differ between two trees (or the trees
// of two commits), as git diff-tree -r --name-only --no-renames lists
// them: a changed mode counts, renames are a deletion and an addition.
func (r *Repo) DiffTree(from, to string) ([]string, error) {
	if names, ok := r.storedDiff(from, to); ok {
		return names, nil
	}
	out, err := r.Git("diff-tree", "-r", "--name-only", "-z", "--no-renames", from, to)
	if err != nil {
		return nil, err
	}
	return nulNames(out), nil
}

// MergeConflictError is a merge of two commits that git could not make
// cleanly; Paths are the files in conflict.
type MergeConflictError struct {
	A, B  string
	Paths []string
	Err   error // git's own failure
}

func (e *MergeConflictError) Error() string {
	return fmt.Sprintf("merging %s and %s conflicts in %s", e.A, e.B, strings.Join(e.Paths, ", "))
}

func (e *MergeConflictError) Unwrap() error { return e.Err }

// MergeTrees merges commits a and b without a worktree or index (git
// merge-tree --write-tree) and returns the merged tree's id. A conflict
// is a *MergeConflictError naming the files; any other failure is git's.
func (r *Repo) MergeTrees(a, b string) (string, error) {
	out, err := r.Git("merge-tree", "--write-tree", "--name-only", "--no-messages", a, b)
	if err != nil {
		var ge *GitError
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if errors.As(err, &ge) && len(lines) > 1 {
			return "", &MergeConflictError{A: a, B: b, Paths: lines[1:], Err: err}
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ChangedNames lists the files that differ between two trees (commits,
// trees), each file once, renames as a deletion and an addition.
func (r *Repo) ChangedNames(from, to string) ([]string, error) {
	out, err := r.Git("diff", "--name-only", "-z", "--no-renames", "--end-of-options", from, to)
	if err != nil {
		return nil, err
	}
	return nulNames(out), nil
}

// nulNames splits git's -z list of names.
func nulNames(out []byte) []string {
	var names []string
	for _, n := range strings.Split(string(out), "\x00") {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}
