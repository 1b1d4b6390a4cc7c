package gitrepo

import "strings"

// Worktree is one working tree of the repository as git lists it.
type Worktree struct {
	Path   string
	Head   string // the commit checked out; empty in a bare repository
	Branch string // full ref name; empty when detached or bare
}

// Worktrees lists the main working tree and every linked one, those
// whose directory is gone included (git prunes them later).
func (r *Repo) Worktrees() ([]Worktree, error) {
	out, err := r.Git("worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var list []Worktree
	for _, block := range strings.Split(string(out), "\n\n") {
		var w Worktree
		for _, line := range strings.Split(block, "\n") {
			key, value, _ := strings.Cut(line, " ")
			switch key {
			case "worktree":
				w.Path = value
			case "HEAD":
				w.Head = value
			case "branch":
				w.Branch = value
			}
		}
		if w.Path != "" {
			list = append(list, w)
		}
	}
	return list, nil
}
