package worktree

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/internal/gitref"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Change is one path that differs from the base commit.
type Change struct {
	Path string `json:"path"`
	// Status relative to the base: added, modified, deleted, type-changed,
	// or untracked.
	Status string `json:"status"`
	// Where the change sits: committed (on the branch), staged, unstaged,
	// untracked. A path can be in several.
	Where []string `json:"where"`
}

// Changes lists every path of the worktree that differs from its base
// commit: committed on the branch, staged, unstaged and untracked, with
// .gitignore, the common info/exclude and core.excludesFile honoured. The
// answers come from git itself, so they are exactly git's; the three
// questions run in parallel.
func Changes(repo *gitrepo.Repo, m *Meta) ([]Change, error) {
	wt := Repo(repo, m)
	var (
		vsBase, committed, status []byte
		errs                      [3]error
		wg                        sync.WaitGroup
	)
	// Commits on the branch are only asked about when there are some: a
	// branch still at its base has none, and one git process less matters.
	head, _ := gitref.Store{Common: repo.CommonDir}.Read("refs/heads/" + m.Branch)
	wg.Add(2)
	go func() {
		defer wg.Done()
		vsBase, errs[0] = wt.Git("diff", "--name-status", "-z", "--no-renames", "--ignore-submodules", m.BaseCommit)
	}()
	if head != m.BaseCommit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			committed, errs[1] = wt.Git("diff", "--name-only", "-z", "--no-renames", m.BaseCommit, "HEAD")
		}()
	}
	go func() {
		defer wg.Done()
		status, errs[2] = wt.Git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	}()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	byPath := map[string]*Change{}
	get := func(p string) *Change {
		c := byPath[p]
		if c == nil {
			c = &Change{Path: p}
			byPath[p] = c
		}
		return c
	}
	f := splitZ(vsBase)
	for i := 0; i+1 < len(f); i += 2 {
		get(f[i+1]).Status = statusName(f[i])
	}
	for _, p := range splitZ(committed) {
		c := get(p)
		c.Where = append(c.Where, "committed")
	}
	for _, rec := range splitZ(status) {
		if len(rec) < 4 {
			continue
		}
		x, y, p := rec[0], rec[1], rec[3:]
		if x == '?' {
			c := get(p)
			c.Status = "untracked"
			c.Where = append(c.Where, "untracked")
			continue
		}
		c := get(p)
		if x != ' ' {
			c.Where = append(c.Where, "staged")
		}
		if y != ' ' {
			c.Where = append(c.Where, "unstaged")
		}
	}
	out := make([]Change, 0, len(byPath))
	for _, c := range byPath {
		// A path changed and changed back is not a change relative to the base.
		if c.Status == "" {
			continue
		}
		if c.Where == nil {
			c.Where = []string{}
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}

func statusName(code string) string {
	switch strings.TrimSpace(code)[:1] {
	case "A":
		return "added"
	case "D":
		return "deleted"
	case "T":
		return "type-changed"
	}
	return "modified"
}

// TreeState summarises a worktree's working tree.
type TreeState struct {
	Clean     bool `json:"clean"`
	Modified  int  `json:"modified"`
	Untracked int  `json:"untracked"`
}

// State reads a worktree's working tree state.
func State(repo *gitrepo.Repo, m *Meta) (TreeState, error) {
	wt := Repo(repo, m)
	out, err := wt.Git("status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return TreeState{}, err
	}
	var s TreeState
	for _, rec := range splitZ(out) {
		if len(rec) < 3 {
			continue
		}
		if rec[0] == '?' {
			s.Untracked++
		} else {
			s.Modified++
		}
	}
	s.Clean = s.Modified == 0 && s.Untracked == 0
	return s, nil
}

// Repo returns the repository as seen from inside worktree m.
func Repo(repo *gitrepo.Repo, m *Meta) *gitrepo.Repo {
	return &gitrepo.Repo{GitDir: adminDir(repo, m.Slug), CommonDir: repo.CommonDir, WorkTree: m.Path}
}

// Integration says whether the worktree's branch is in its base: "merged",
// "squash-merged", "not merged", or "no commits" when the branch has none
// of its own.
func Integration(repo *gitrepo.Repo, m *Meta) (string, error) {
	head, err := repo.Git("rev-parse", "--verify", "--quiet", "refs/heads/"+m.Branch)
	if err != nil {
		return "", fmt.Errorf("branch %s is gone", m.Branch)
	}
	h := strings.TrimSpace(string(head))
	if h == m.BaseCommit {
		return "no commits", nil
	}
	target := m.Base
	if _, err := repo.Git("rev-parse", "--verify", "--quiet", target+"^{commit}"); err != nil {
		target = m.BaseCommit
	}
	if _, err := repo.Git("merge-base", "--is-ancestor", h, target); err == nil {
		return "merged", nil
	}
	mb, err := repo.Git("merge-base", h, target)
	if err != nil {
		return "not merged", nil
	}
	// Squash-merged: one commit holding the branch's whole change is
	// already in the target, as git cherry sees patches.
	tmp, err := repo.Git("commit-tree", h+"^{tree}", "-p", strings.TrimSpace(string(mb)), "-m", "agentproto squash probe")
	if err != nil {
		return "", err
	}
	out, err := repo.Git("cherry", target, strings.TrimSpace(string(tmp)))
	if err == nil && strings.HasPrefix(strings.TrimSpace(string(out)), "-") {
		return "squash-merged", nil
	}
	return "not merged", nil
}
