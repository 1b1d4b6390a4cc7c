package worktree

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/gitref"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Change is one path that differs from the base commit.
type Change struct {
	Path string `json:"path"`
	// Status relative to the base: added, modified, deleted, type-changed,
	// untracked, or reverted: the working copy is as at the base while a
	// commit since the base or the index holds a change to the path.
	Status string `json:"status"`
	// Where the change sits: committed (on the branch), staged, unstaged,
	// untracked. A path can be in several.
	Where []string `json:"where"`
}

// Changes lists every path of the worktree that differs from its base
// commit: committed on the branch since the base (in any commit, even one
// undone later), staged, unstaged and untracked, with
// .gitignore, the common info/exclude and core.excludesFile honoured. The
// answers come from git itself, so they are exactly git's. While the
// worktree's HEAD is still its base, one git status tells it all; after
// commits, git diff against the base joins in.
func Changes(repo *gitrepo.Repo, m *Meta) ([]Change, error) {
	wt := Repo(repo, m)
	if worktreeHead(repo, m) == m.BaseCommit {
		changes, ok, err := changesAtBase(wt)
		if err != nil || ok {
			return changes, err
		}
	}
	return changesByDiff(wt, m)
}

// worktreeHead returns the commit the worktree's HEAD names, or "" when
// it cannot be read without asking git.
func worktreeHead(repo *gitrepo.Repo, m *Meta) string {
	admin := adminDir(repo, m.Slug)
	if target, ok := gitref.Symbolic(admin, "HEAD"); ok {
		h, _ := gitref.Store{Common: repo.CommonDir}.Read(target)
		return h
	}
	b, _ := os.ReadFile(filepath.Join(admin, "HEAD"))
	return strings.TrimSpace(string(b))
}

// statusEntry is one record of git status: x and y are the index and
// working tree columns, '.' when unchanged; x is '?' for untracked files.
type statusEntry struct {
	x, y byte
	path string
}

// changesByDiff asks git four questions in parallel: the working tree
// against the base, HEAD against the base, the paths each commit since the
// base touched, and the status.
func changesByDiff(wt *gitrepo.Repo, m *Meta) ([]Change, error) {
	var (
		vsBase, touched, status []byte
		committed               []string
		errs                    [4]error
		wg                      sync.WaitGroup
	)
	wg.Add(4)
	go func() {
		defer wg.Done()
		vsBase, errs[0] = wt.Git("diff", "--name-status", "-z", "--no-renames", "--ignore-submodules", m.BaseCommit)
	}()
	go func() {
		defer wg.Done()
		committed, errs[1] = wt.ChangedNames(m.BaseCommit, "HEAD")
	}()
	go func() {
		// A path changed in one commit and changed back in the next is
		// still in the branch's history, which is what gets pushed.
		defer wg.Done()
		touched, errs[3] = wt.Git("log", "--format=", "--name-only", "-z", "--no-renames", m.BaseCommit+"..HEAD")
	}()
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
	base := map[string]string{}
	f := splitZ(vsBase)
	for i := 0; i+1 < len(f); i += 2 {
		base[f[i+1]] = statusName(f[i])
	}
	var entries []statusEntry
	for _, rec := range splitZ(status) {
		if len(rec) < 4 {
			continue
		}
		x, y := rec[0], rec[1]
		if x == ' ' {
			x = '.'
		}
		if y == ' ' {
			y = '.'
		}
		entries = append(entries, statusEntry{x: x, y: y, path: rec[3:]})
	}
	return mergeChanges(base, append(committed, splitZ(touched)...), entries), nil
}

// mergeChanges joins the status of each path relative to the base with
// where its change sits.
func mergeChanges(base map[string]string, committed []string, status []statusEntry) []Change {
	byPath := map[string]*Change{}
	get := func(p string) *Change {
		c := byPath[p]
		if c == nil {
			c = &Change{Path: p}
			byPath[p] = c
		}
		return c
	}
	for p, st := range base {
		get(p).Status = st
	}
	for _, p := range committed {
		c := get(p)
		if len(c.Where) == 0 {
			c.Where = append(c.Where, "committed")
		}
	}
	for _, e := range status {
		c := get(e.path)
		if e.x == '?' {
			c.Status = "untracked"
			c.Where = append(c.Where, "untracked")
			continue
		}
		if e.x != '.' {
			c.Where = append(c.Where, "staged")
		}
		if e.y != '.' {
			c.Where = append(c.Where, "unstaged")
		}
	}
	out := make([]Change, 0, len(byPath))
	for _, c := range byPath {
		// A path whose working copy is back at the base still counts when
		// a commit or the index holds a change: that is what a commit or
		// push would carry.
		if c.Status == "" {
			c.Status = "reverted"
		}
		if c.Where == nil {
			c.Where = []string{}
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// changesAtBase answers from one git status when HEAD is the base: its
// version-2 records carry the modes and ids of each path at HEAD, in the
// index and in the working tree, from which the change against the base
// follows as git diff would report it. A path staged and then edited back
// is compared with the base by content. ok is false when the status holds
// something this reading does not cover (conflicts, submodules, renames);
// the caller then asks git diff.
func changesAtBase(wt *gitrepo.Repo) (changes []Change, ok bool, err error) {
	out, err := wt.Git("status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, false, err
	}
	base := map[string]string{}
	var entries []statusEntry
	var recheck []recheckPath
	for _, rec := range splitZ(out) {
		switch rec[0] {
		case '?':
			entries = append(entries, statusEntry{x: '?', y: '?', path: rec[2:]})
			continue
		case '!', '#':
			continue
		case '1':
		default:
			return nil, false, nil
		}
		// 1 XY sub mH mI mW hH hI path
		f := strings.SplitN(rec, " ", 9)
		if len(f) != 9 || len(f[1]) != 2 || f[2] != "N..." {
			return nil, false, nil
		}
		mH, err1 := strconv.ParseUint(f[3], 8, 32)
		mW, err2 := strconv.ParseUint(f[5], 8, 32)
		if err1 != nil || err2 != nil || mH>>12 == 0o16 || mW>>12 == 0o16 {
			return nil, false, nil
		}
		e := statusEntry{x: f[1][0], y: f[1][1], path: f[8]}
		entries = append(entries, e)
		switch {
		case mH == 0 && mW == 0:
		case mH == 0:
			base[e.path] = "added"
		case mW == 0:
			base[e.path] = "deleted"
		case mH>>12 != mW>>12:
			base[e.path] = "type-changed"
		case mH != mW:
			base[e.path] = "modified"
		case e.x != '.' && e.y != '.':
			// Staged and edited again: the tree may be back at the base.
			if strings.ContainsAny(e.path, "\n\r") {
				return nil, false, nil // git hash-object --stdin-paths reads lines
			}
			recheck = append(recheck, recheckPath{path: e.path, mode: uint32(mW), id: f[6]})
		default:
			base[e.path] = "modified"
		}
	}
	same, err := sameAsBase(wt, recheck)
	if err != nil {
		return nil, false, err
	}
	for i, r := range recheck {
		if !same[i] {
			base[r.path] = "modified"
		}
	}
	return mergeChanges(base, nil, entries), true, nil
}

// recheckPath is a working tree file to compare with its blob at the base.
type recheckPath struct {
	path string
	mode uint32
	id   string
}

// sameAsBase says for each path whether the working tree holds exactly
// its blob at the base. Regular files are hashed by git, with the
// attributes and filters git diff would apply; symbolic links by their
// target.
func sameAsBase(wt *gitrepo.Repo, paths []recheckPath) ([]bool, error) {
	same := make([]bool, len(paths))
	var files []string
	var at []int
	for i, p := range paths {
		if p.mode>>12 == 0o12 {
			target, err := os.Readlink(filepath.Join(wt.WorkTree, p.path))
			if err != nil {
				return nil, err
			}
			same[i] = plumbing.ComputeHash(plumbing.BlobObject, []byte(target)).String() == p.id
			continue
		}
		files = append(files, p.path)
		at = append(at, i)
	}
	if len(files) == 0 {
		return same, nil
	}
	out, err := wt.GitInput([]byte(strings.Join(files, "\n")+"\n"), "hash-object", "--stdin-paths")
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(files) {
		return nil, fmt.Errorf("git hash-object returned %d ids for %d paths", len(ids), len(files))
	}
	for k, i := range at {
		same[i] = ids[k] == paths[i].id
	}
	return same, nil
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

// BranchHead returns the commit the worktree's branch points at, read from
// the refs (loose or packed), or "" when the branch is gone.
func BranchHead(repo *gitrepo.Repo, m *Meta) string {
	h, err := gitref.Store{Common: repo.CommonDir}.Read("refs/heads/" + m.Branch)
	if err != nil {
		return ""
	}
	return h
}

// Integration says whether the worktree's branch is in its base: "merged",
// "squash-merged", "not merged", or "no commits" when the branch has none
// of its own.
func Integration(repo *gitrepo.Repo, m *Meta) (string, error) {
	h := BranchHead(repo, m)
	if h == "" {
		return "", fmt.Errorf("branch %s is gone", m.Branch)
	}
	if h == m.BaseCommit {
		return "no commits", nil
	}
	target := m.Base
	if !repo.HasCommit(target) {
		target = m.BaseCommit
	}
	if repo.IsAncestor(h, target) {
		return "merged", nil
	}
	mb, err := repo.MergeBase(h, target)
	if err != nil {
		return "not merged", nil
	}
	// Squash-merged: one commit holding the branch's whole change is
	// already in the target, as git cherry sees patches.
	tmp, err := repo.CommitTree(h+"^{tree}", []string{mb}, "agentproto squash probe")
	if err != nil {
		return "", err
	}
	out, err := repo.Git("cherry", target, tmp)
	if err == nil && strings.HasPrefix(strings.TrimSpace(string(out)), "-") {
		return "squash-merged", nil
	}
	return "not merged", nil
}
