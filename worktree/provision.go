package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	formatconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitobj"
	"github.com/agentproto/agentproto/internal/gitref"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// RootEnv overrides where worktrees live when the config does not say.
const RootEnv = "AGENTPROTO_WORKTREES_ROOT"

// Location returns where worktree slug lives: <root>/<repo>/<slug>, the root
// being the configured one, else $AGENTPROTO_WORKTREES_ROOT, else
// ~/.agentproto/worktrees. It is always outside the repository.
func Location(repo *gitrepo.Repo, configured, slug string) (string, error) {
	root := configured
	if root == "" {
		root = os.Getenv(RootEnv)
	}
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no worktree root: set [worktree] root or %s (%v)", RootEnv, err)
		}
		root = filepath.Join(home, ".agentproto", "worktrees")
	}
	if strings.HasPrefix(root, "~/") {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, root[2:])
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	// Named after the repository, also when asked from a linked worktree.
	name := filepath.Base(repo.WorkTree)
	if repo.WorkTree == "" || filepath.Clean(repo.GitDir) != filepath.Clean(repo.CommonDir) {
		name = strings.TrimSuffix(filepath.Base(repo.CommonDir), ".git")
		if filepath.Base(repo.CommonDir) == ".git" {
			name = filepath.Base(filepath.Dir(repo.CommonDir))
		}
	}
	path := filepath.Join(root, name, slug)
	for _, inside := range []string{repo.WorkTree, repo.CommonDir} {
		if inside == "" {
			continue
		}
		if rel, err := filepath.Rel(inside, path); err == nil && !strings.HasPrefix(rel, "..") {
			return "", fault.Invalidf("worktree root %s is inside the repository (%s); worktrees must live outside it", root, inside)
		}
	}
	return path, nil
}

// ResolveBase turns the requested base (or the configured one, else
// origin/HEAD, else HEAD) into a branch-like name and a commit. Common forms
// are read straight from the refs; anything else is asked of git.
func ResolveBase(repo *gitrepo.Repo, requested, configured string) (name, commit string, err error) {
	candidates := []string{requested}
	if requested == "" {
		candidates = []string{configured, "origin/HEAD", "HEAD"}
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if n, h, ok := resolveFast(repo, c); ok {
			return n, h, nil
		}
		if requested == "" && c == "origin/HEAD" && !remoteHeadExists(repo) {
			continue // most clones have it; asking git when it is absent costs a process
		}
		commit, err := repo.Commit(c)
		if err == nil {
			name := c
			if abbrev, err := repo.Git("rev-parse", "--abbrev-ref", c); err == nil {
				if a := strings.TrimSpace(string(abbrev)); a != "" && a != "HEAD" {
					name = a
				}
			}
			return name, commit, nil
		}
		if requested != "" {
			return "", "", fault.Invalidf("base %q does not name a commit", requested)
		}
	}
	return "", "", fault.Invalidf("no base: the repository has no commit yet")
}

// remoteHeadExists says whether refs/remotes/origin/HEAD exists, loose or
// packed, symbolic or not.
func remoteHeadExists(repo *gitrepo.Repo) bool {
	const name = "refs/remotes/origin/HEAD"
	if _, err := os.Lstat(filepath.Join(repo.CommonDir, name)); err == nil {
		return true
	}
	h, err := gitref.Store{Common: repo.CommonDir}.Read(name)
	return err != nil || h != ""
}

// resolveFast resolves HEAD, branches and remote-tracking branches from
// the ref files, which always point at commits.
func resolveFast(repo *gitrepo.Repo, rev string) (string, string, bool) {
	refs := gitref.Store{Common: repo.CommonDir}
	var full string
	switch {
	case rev == "HEAD":
		t, ok := gitref.Symbolic(repo.GitDir, "HEAD")
		if !ok {
			return "", "", false // detached: let git say what it is
		}
		full = t
	case strings.HasSuffix(rev, "/HEAD"):
		t, ok := gitref.Symbolic(repo.CommonDir, "refs/remotes/"+rev)
		if !ok {
			return "", "", false
		}
		full = t
	default:
		for _, cand := range []string{"refs/heads/" + rev, "refs/remotes/" + rev} {
			if h, err := refs.Read(cand); err == nil && h != "" {
				full = cand
				break
			}
		}
	}
	if !strings.HasPrefix(full, "refs/heads/") && !strings.HasPrefix(full, "refs/remotes/") {
		return "", "", false
	}
	h, err := refs.Read(full)
	if err != nil || len(h) != 40 {
		return "", "", false
	}
	name := strings.TrimPrefix(strings.TrimPrefix(full, "refs/heads/"), "refs/remotes/")
	return name, h, true
}

// NewOptions say what worktree to make.
type NewOptions struct {
	Slug       string
	Path       string // from Location
	Branch     string // default wt/SLUG
	Base       string // name as given
	BaseCommit string

	// Submodules: initialise and update the submodules of the base tree
	// ([worktree] submodules); otherwise they are empty directories, as git
	// worktree add leaves them.
	Submodules bool

	// Restore checks out an existing branch at checkoutCommit.
	checkoutCommit string
	existingBranch bool
}

// Provision creates a real linked worktree: git's admin dir under the
// common dir, a .git file in the worktree, the files of the base tree and an
// index with stat data, so that git status is clean at once. The whole tree
// is read and checked against git's tree rules before anything is made.
// The files are written by our own checkout when it writes what git would
// (line ending conversions included), else by git's (see chooseCheckout).
// On any failure everything it made is removed again.
func Provision(repo *gitrepo.Repo, o NewOptions) (m *Meta, err error) {
	if err := ValidateSlug(o.Slug); err != nil {
		return nil, err
	}
	if o.Branch == "" {
		o.Branch = BranchPrefix + o.Slug
	}
	if !gitref.ValidRefName("refs/heads/" + o.Branch) {
		return nil, fault.Invalidf("%q is not a valid branch name", o.Branch)
	}
	st := openStorage(repo.CommonDir)
	defer st.Close()
	if err := checkRepository(repo); err != nil {
		return nil, err
	}
	at := o.BaseCommit
	if o.checkoutCommit != "" {
		at = o.checkoutCommit
	}
	cfg, err := loadGitConfig(repo)
	if err != nil {
		return nil, err
	}
	plan, packs, err := readPlan(repo, st, cfg, plumbing.NewHash(at))
	if err != nil {
		return nil, err
	}
	defer packs.Close()
	viaGit, err := chooseCheckout(repo, cfg, plan, o.Submodules)
	if err != nil {
		return nil, err
	}
	admin := adminDir(repo, o.Slug)
	if _, err := os.Stat(admin); err == nil {
		if a, ok := FindAbandoned(repo, o.Slug); ok {
			return nil, fault.Conflictf("worktree %s was left half made by an interrupted worktree new (pid %d); remove it with: git agentproto worktree rm %s", o.Slug, a.Pid, o.Slug)
		}
		return nil, fault.Conflictf("a worktree named %s already exists (%s)", o.Slug, admin)
	}
	if err := ensureEmptyDir(o.Path); err != nil {
		return nil, err
	}

	// An interrupt while the worktree is half made removes what was made,
	// then ends the process as the signal would have.
	signals := make(chan os.Signal, 1)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) { // nohup and background jobs keep ignoring them
			signal.Notify(signals, sig)
		}
	}
	interrupted := make(chan struct{})
	watched := make(chan struct{})
	var caught os.Signal
	go func() {
		defer close(watched)
		if sig, ok := <-signals; ok {
			caught = sig
			close(interrupted)
		}
	}()
	var undo []func()
	defer func() {
		signal.Stop(signals)
		close(signals)
		<-watched // a signal already queued is seen before deciding
		select {
		case <-interrupted:
			if err == nil {
				err = fmt.Errorf("interrupted")
			}
		default:
		}
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
		if caught != nil {
			signal.Reset(caught)
			syscall.Kill(os.Getpid(), caught.(syscall.Signal))
			time.Sleep(time.Second) // the signal ends the process meanwhile
		}
	}()
	ref := "refs/heads/" + o.Branch
	if !o.existingBranch {
		refs := gitref.Store{Common: repo.CommonDir}
		if err := refs.Update(ref, o.BaseCommit, ""); err == gitref.ErrStale {
			return nil, fault.Conflictf("branch %s already exists; pick another slug or --branch", o.Branch)
		} else if err != nil {
			return nil, err
		}
		undo = append(undo, func() { repo.DeleteRef(ref, o.BaseCommit) })
	}

	if err := os.MkdirAll(admin, 0o755); err != nil {
		return nil, err
	}
	undo = append(undo, func() { os.RemoveAll(admin) })
	// "locked" keeps git worktree prune away while the tree is half made,
	// and says who is making it from what, for FindAbandoned.
	files := map[string]string{
		"locked":    fmt.Sprintf("%s pid %d base %s\n", initializing, os.Getpid(), at),
		"HEAD":      "ref: " + ref + "\n",
		"commondir": "../..\n",
		"gitdir":    filepath.Join(o.Path, ".git") + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(admin, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	created, err := mkdirOwned(o.Path)
	if err != nil {
		return nil, err
	}
	if created {
		undo = append(undo, func() { os.RemoveAll(o.Path) })
	} else {
		// The directory was there, empty: everything in it is ours.
		undo = append(undo, func() { emptyDir(o.Path) })
	}
	if err := os.WriteFile(filepath.Join(o.Path, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		return nil, err
	}
	m = &Meta{Slug: o.Slug, Path: o.Path, Branch: o.Branch, Base: o.Base, BaseCommit: o.BaseCommit,
		Created: time.Now().UTC().Format(time.RFC3339), State: StateReady, Checkout: CheckoutFast}
	if viaGit != "" {
		m.Checkout, m.CheckoutReason = CheckoutGit, viaGit
		if err := gitCheckout(repo, o.Path, admin, o.Submodules && plan.gitlinks > 0, interrupted); err != nil {
			return nil, err
		}
	} else {
		idx, err := checkoutTree(st, packs, repo.CommonDir, o.Path, plan, interrupted)
		if err != nil {
			return nil, err
		}
		if err := writeIndex(filepath.Join(admin, "index"), idx); err != nil {
			return nil, err
		}
	}
	// Nothing has run in the worktree yet: its index is the checkout's.
	keepCheckoutIndex(repo, o.Slug, at)
	undo = append(undo, func() { dropCheckoutIndex(repo, o.Slug) })
	if err := writeMeta(repo, m); err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Join(admin, "locked")); err != nil {
		return nil, err
	}
	return m, nil
}

// readPlan reads and checks the tree of commit. In a partial clone whose
// trees are missing too, git fetches them (ls-tree reads them all), then
// the tree is read again.
func readPlan(repo *gitrepo.Repo, st *filesystem.Storage, cfg gitConfig, commit plumbing.Hash) (*treePlan, *gitobj.PackSet, error) {
	for attempt := 0; ; attempt++ {
		packs := gitobj.OpenPackSet(repo.CommonDir)
		r := gitobj.NewReader(packs)
		plan, err := planTree(&packStorer{Storage: st, r: r}, commit)
		r.Close()
		if err == nil {
			return plan, packs, nil
		}
		packs.Close()
		if attempt > 0 || !errors.Is(err, plumbing.ErrObjectNotFound) || partialClone(cfg) == "" {
			return nil, nil, err
		}
		if _, ferr := repo.ListTree(commit.String()); ferr != nil { // walking every tree fetches it
			return nil, nil, fmt.Errorf("%w (fetching the missing trees: %v)", err, ferr)
		}
	}
}

// ensureEmptyDir refuses a path that exists and holds anything: nothing of
// the user's is ever overwritten.
func ensureEmptyDir(path string) error {
	entries, err := os.ReadDir(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fault.Conflictf("%s exists and is not an empty directory", path)
	}
	if len(entries) > 0 {
		return fault.Conflictf("%s exists and is not empty; nothing was changed", path)
	}
	return nil
}

// emptyDir removes everything inside dir, leaving dir itself.
func emptyDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// mkdirOwned creates path (and parents) and reports whether path itself
// was created here, so undo removes only what we made.
func mkdirOwned(path string) (bool, error) {
	if _, err := os.Stat(path); err == nil {
		return false, nil
	}
	return true, os.MkdirAll(path, 0o755)
}

// checkRepository refuses layouts agentproto cannot read at all: SHA-256
// object names and reftable refs.
func checkRepository(repo *gitrepo.Repo) error {
	// The raw file: git 2.39 itself cannot open a reftable repository, and
	// go-git rejects refspecs it does not know, such as the negative ones
	// agentproto init adds.
	raw := formatconfig.New()
	if f, err := os.Open(repo.Path("config")); err == nil {
		err = formatconfig.NewDecoder(f).Decode(raw)
		f.Close()
		if err != nil {
			return fmt.Errorf("reading repository config: %w", err)
		}
	}
	if v := raw.Section("extensions").Option("objectFormat"); v != "" && !strings.EqualFold(v, "sha1") {
		return unsupported("the repository names objects with %s", v)
	}
	if v := raw.Section("extensions").Option("refStorage"); v != "" && v != "files" {
		return unsupported("the repository stores refs as %s", v)
	}
	return nil
}
