package worktree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// SalvagePrefix holds archived worktree states:
// refs/agentproto/salvage/<slug>/<UTC timestamp>.
const SalvagePrefix = "refs/agentproto/salvage/"

// RemoveOptions allow removing a dirty worktree, one kind of loss at a time.
type RemoveOptions struct {
	DiscardModified  bool
	DiscardUntracked bool
}

// Remove deletes the worktree and its admin dir. A dirty tree is refused
// unless the options accept that exact loss. The branch is kept: commits
// are never lost by removing a worktree.
func Remove(repo *gitrepo.Repo, m *Meta, o RemoveOptions) error {
	if _, err := os.Stat(filepath.Join(adminDir(repo, m.Slug), "locked")); err == nil {
		return fault.Refusedf("worktree %s is locked (git worktree unlock %s to release it)", m.Slug, m.Path)
	}
	force := false
	if _, err := os.Stat(m.Path); err == nil {
		s, err := State(repo, m)
		if err != nil {
			return err
		}
		var refuse []string
		if s.Modified > 0 && !o.DiscardModified {
			refuse = append(refuse, fmt.Sprintf("%d modified paths (--discard-modified)", s.Modified))
		}
		if s.Untracked > 0 && !o.DiscardUntracked {
			refuse = append(refuse, fmt.Sprintf("%d untracked files (--discard-untracked)", s.Untracked))
		}
		if len(refuse) > 0 {
			return fault.Refusedf("worktree %s has %s; nothing was removed (or keep it all: git agentproto worktree archive %s)", m.Slug, strings.Join(refuse, " and "), m.Slug)
		}
		force = !s.Clean
	}
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	if _, err := repo.Git(append(args, m.Path)...); err != nil {
		// The directory may be gone already; let git drop the admin dir.
		if _, serr := os.Stat(m.Path); !os.IsNotExist(serr) {
			return err
		}
		if _, err := repo.Git("worktree", "prune"); err != nil {
			return err
		}
		os.RemoveAll(adminDir(repo, m.Slug))
	}
	dropCheckoutIndex(repo, m.Slug)
	return nil
}

// Salvage is an archived worktree state.
type Salvage struct {
	Ref      string `json:"ref"`
	Commit   string `json:"commit"`
	Head     string `json:"head"`
	Meta     Meta   `json:"meta"`
	Archived string `json:"archived"`
}

// Archive saves the whole state of the worktree — its commits, its index
// and its working tree with untracked, non-ignored files — as commits on a
// salvage ref, then removes the worktree. Nothing is removed unless the
// snapshot was written.
func Archive(repo *gitrepo.Repo, m *Meta, now time.Time) (*Salvage, error) {
	wt := Repo(repo, m)
	h, err := wt.Commit("HEAD")
	if err != nil {
		return nil, err
	}
	indexTree, err := wt.Git("write-tree")
	if err != nil {
		return nil, fmt.Errorf("the index of %s has conflicts; resolve them first: %w", m.Slug, err)
	}
	// The working tree goes through a copy of the index, so the real one
	// is left exactly as it was.
	tmp, err := os.CreateTemp("", "agentproto-salvage-index-")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	real, err := os.ReadFile(filepath.Join(adminDir(repo, m.Slug), "index"))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(tmp.Name(), real, 0o600); err != nil {
		return nil, err
	}
	add := wt.Command("add", "-A", "--", ".")
	add.Env = append(add.Env, "GIT_INDEX_FILE="+tmp.Name())
	if out, err := add.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("snapshotting %s: %v: %s", m.Slug, err, out)
	}
	wtree := wt.Command("write-tree")
	wtree.Env = append(wtree.Env, "GIT_INDEX_FILE="+tmp.Name())
	workTree, err := wtree.Output()
	if err != nil {
		return nil, fmt.Errorf("snapshotting %s: %v", m.Slug, err)
	}
	s, err := writeSalvage(repo, m, h, strings.TrimSpace(string(indexTree)), strings.TrimSpace(string(workTree)), now)
	if err != nil {
		return nil, err
	}
	if err := Remove(repo, m, RemoveOptions{DiscardModified: true, DiscardUntracked: true}); err != nil {
		return s, fmt.Errorf("saved %s as %s, but removing it failed: %w", m.Slug, s.Ref, err)
	}
	return s, nil
}

// LatestSalvage returns the newest salvage of slug.
func LatestSalvage(repo *gitrepo.Repo, slug string) (*Salvage, error) {
	refs, err := repo.Refs(SalvagePrefix + slug + "/")
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, fault.Invalidf("no archived state of worktree %q (refs %s%s/*)", slug, SalvagePrefix, slug)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	last := refs[len(refs)-1]
	c, err := repo.ReadCommit(last.ID)
	if err != nil {
		return nil, err
	}
	_, body, _ := strings.Cut(c.Message, "\n\n")
	var s Salvage
	if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &s); err != nil {
		return nil, fmt.Errorf("salvage %s is unreadable: %v", last.Name, err)
	}
	s.Ref, s.Commit = last.Name, last.ID
	return &s, nil
}

// Restore brings an archived worktree back: the branch checked out at the
// same place, then the index and working tree as they were, untracked files
// included. The salvage ref is kept.
func Restore(repo *gitrepo.Repo, s *Salvage) (*Meta, error) {
	if _, err := os.Stat(adminDir(repo, s.Meta.Slug)); err == nil {
		return nil, fault.Conflictf("worktree %s exists; remove or archive it before restoring", s.Meta.Slug)
	}
	branchRef := "refs/heads/" + s.Meta.Branch
	if now, err := repo.Commit(branchRef); err != nil {
		// The branch was deleted since: bring it back where it was.
		if err := repo.UpdateRef(branchRef, s.Head, ""); err != nil {
			return nil, err
		}
	} else if now != s.Head {
		return nil, fault.Conflictf("branch %s moved since the archive (now %s, archived at %s); restore would not be faithful", s.Meta.Branch, now[:12], s.Head[:12])
	}
	m, err := Provision(repo, NewOptions{Slug: s.Meta.Slug, Path: s.Meta.Path, Branch: s.Meta.Branch,
		Base: s.Meta.Base, BaseCommit: s.Meta.BaseCommit, checkoutCommit: s.Head, existingBranch: true})
	if err != nil {
		return nil, err
	}
	wt := Repo(repo, m)
	if _, err := wt.Git("read-tree", "-u", "--reset", s.Commit+"^{tree}"); err != nil {
		return nil, fmt.Errorf("restoring the working tree of %s: %w", m.Slug, err)
	}
	if _, err := wt.Git("read-tree", s.Commit+"^1^{tree}"); err != nil {
		return nil, fmt.Errorf("restoring the index of %s: %w", m.Slug, err)
	}
	return m, nil
}

// Class is how gc sorts a worktree.
type Class struct {
	Slug        string    `json:"slug"`
	Action      string    `json:"action"` // reclaim, salvage, hold
	Reason      string    `json:"reason"`
	Tree        TreeState `json:"tree"`
	Integration string    `json:"integration"`
	Live        bool      `json:"live"`
}

// Status is a worktree's tree state and integration into its base.
type Status struct {
	Tree        TreeState
	Integration string
	// TreeErr and IntegrationErr say why either could not be read.
	TreeErr, IntegrationErr error
}

// Statuses reads the status of each worktree, several at a time: each one
// asks git, and one after another that took ~150 ms a worktree.
func Statuses(repo *gitrepo.Repo, ms []*Meta) []Status {
	out := make([]Status, len(ms))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(2, runtime.NumCPU()); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				st := &out[i]
				st.Tree, st.TreeErr = State(repo, ms[i])
				st.Integration, st.IntegrationErr = Integration(repo, ms[i])
			}
		}()
	}
	for i := range ms {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// Classify sorts worktrees for gc: reclaim (integrated or without commits,
// clean, idle), salvage (dirty, idle), hold (live, or unmerged commits).
// live says whether a session is attached to a worktree.
func Classify(repo *gitrepo.Repo, ms []*Meta, live func(*Meta) bool) ([]Class, error) {
	out := make([]Class, len(ms))
	for i, st := range Statuses(repo, ms) {
		m := ms[i]
		for _, err := range []error{st.TreeErr, st.IntegrationErr} {
			if err != nil {
				return nil, fmt.Errorf("worktree %s: %w", m.Slug, err)
			}
		}
		c := Class{Slug: m.Slug, Live: live(m), Tree: st.Tree, Integration: st.Integration}
		switch {
		case c.Live:
			c.Action, c.Reason = "hold", "a session is attached"
		case !st.Tree.Clean:
			c.Action, c.Reason = "salvage", "uncommitted work, no session attached"
		case st.Integration == "not merged":
			c.Action, c.Reason = "hold", "commits not in the base"
		default:
			c.Action, c.Reason = "reclaim", "clean and "+st.Integration
		}
		out[i] = c
	}
	return out, nil
}

// initializing starts the "locked" file of a worktree being provisioned.
const initializing = "initializing by agentproto"

// Abandoned is a worktree whose provisioning never finished: the process
// making it was killed before it could remove what it had made.
type Abandoned struct {
	Slug   string `json:"slug"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Pid    int    `json:"pid"`
	// Base is the commit its branch was made at.
	Base string `json:"base"`
}

// FindAbandoned reports whether slug is a worktree left half made: locked
// as initializing by a process that is gone, with no record written.
func FindAbandoned(repo *gitrepo.Repo, slug string) (Abandoned, bool) {
	admin := adminDir(repo, slug)
	if _, err := os.Stat(filepath.Join(admin, metaFile)); err == nil {
		return Abandoned{}, false
	}
	lockPath := filepath.Join(admin, "locked")
	b, err := os.ReadFile(lockPath)
	if err != nil {
		return Abandoned{}, false
	}
	var pid int
	var base string
	if n, _ := fmt.Sscanf(string(b), initializing+" pid %d base %s", &pid, &base); n != 2 || pid <= 0 {
		return Abandoned{}, false
	}
	if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
		// Alive: still at work, unless the pid now names a process that
		// started after the lock was written.
		lockInfo, lerr := os.Stat(lockPath)
		started, ok := processStart(pid)
		if lerr != nil || !ok || !started.After(lockInfo.ModTime()) {
			return Abandoned{}, false
		}
	}
	a := Abandoned{Slug: slug, Pid: pid, Base: base}
	if gitdir, err := os.ReadFile(filepath.Join(admin, "gitdir")); err == nil {
		a.Path = filepath.Dir(strings.TrimSpace(string(gitdir)))
	}
	if head, err := os.ReadFile(filepath.Join(admin, "HEAD")); err == nil {
		a.Branch = strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(string(head), "ref: ")), "refs/heads/")
	}
	return a, true
}

// AllAbandoned lists the worktrees left half made.
func AllAbandoned(repo *gitrepo.Repo) []Abandoned {
	entries, _ := os.ReadDir(repo.Path("worktrees"))
	var out []Abandoned
	for _, e := range entries {
		if a, ok := FindAbandoned(repo, e.Name()); ok {
			out = append(out, a)
		}
	}
	return out
}

// RemoveAbandoned removes what an interrupted provisioning left: the
// partial checkout (only files it wrote: the record of the worktree was
// never written, so nobody worked in it), git's admin dir, and the branch
// while it still points at the commit it was made at.
func RemoveAbandoned(repo *gitrepo.Repo, a Abandoned) error {
	if a.Path != "" {
		if err := os.RemoveAll(a.Path); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(adminDir(repo, a.Slug)); err != nil {
		return err
	}
	if a.Branch != "" && a.Base != "" {
		// Compare-and-delete: a branch that has moved since is kept.
		repo.DeleteRef("refs/heads/"+a.Branch, a.Base)
	}
	return nil
}

// processStart returns when process pid started, from /proc (Linux).
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return time.Time{}, false
	}
	// Field 22, counted from the pid; the name in parentheses may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	fields := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(fields) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(fields[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	const userHZ = 100 // clock ticks per second of /proc, on every Linux port in use
	return boot.Add(time.Duration(ticks) * time.Second / userHZ), true
}

func bootTime() (time.Time, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Unix(sec, 0), err == nil
		}
	}
	return time.Time{}, false
}
