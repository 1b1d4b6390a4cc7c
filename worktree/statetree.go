package worktree

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// stateConfig turns off what lets a worktree's own settings answer for
// the disk: a file system monitor reports what it likes, and an untracked
// cache is only as fresh as its last update.
var stateConfig = []string{"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"}

// StateTree writes the tree of everything the worktree holds — tracked
// files as they are on disk and untracked files that are not ignored —
// and returns its id. It starts from the index the checkout wrote, kept
// where the agent cannot write (the worktree's own is the agent's to
// rewrite: trustedindex.go), so the real index is never touched and never
// believed; entries marked assume-unchanged or skip-worktree are read from
// disk too, since those flags hide a change from git status but not from
// what the files are. A tracked file is one HEAD holds; what the agent
// only staged counts as untracked.
func StateTree(repo *gitrepo.Repo, m *Meta) (string, error) {
	s, err := stateOf(repo, m, false)
	if err != nil {
		return "", err
	}
	return s.Tree, nil
}

// KeptState is a state tree with the index that built it, kept in memory so
// that a later look can tell whether the disk still holds that tree
// without writing it again.
type KeptState struct {
	Tree  string
	index []byte // the index git left after adding everything
}

// KeptStateFrom is the state of tree with the index that built it, as
// Index gave it: one a caller kept (and made sure of) for a later command.
func KeptStateFrom(tree string, index []byte) *KeptState {
	return &KeptState{Tree: tree, index: index}
}

// Index is the index that built s.Tree.
func (s *KeptState) Index() []byte { return s.index }

// KeptStateOf is StateTree, keeping the index for KeptState.Unchanged.
func KeptStateOf(repo *gitrepo.Repo, m *Meta) (*KeptState, error) {
	return stateOf(repo, m, true)
}

func stateOf(repo *gitrepo.Repo, m *Meta, keep bool) (*KeptState, error) {
	wt := Repo(repo, m)
	tmp, err := os.CreateTemp("", "agentproto-state-index-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	// The checkout's index, never the worktree's own (trustedindex.go).
	base, commit, copied := stateBase(repo, m)
	if copied {
		_, err = tmp.Write(base)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	git := func(stdin []byte, args ...string) ([]byte, error) {
		return withIndex(wt, tmp.Name(), stdin, append(append([]string{}, stateConfig...), args...)...)
	}
	atCheckout := copied && worktreeHead(repo, m) == commit
	if copied && !atCheckout {
		// Tracked is what HEAD holds: after the agent's commits, HEAD's
		// tree is read over the checkout's index, whose stat data stays
		// for every path HEAD holds as the checkout wrote it.
		if _, err := git(nil, "read-tree", "-m", "HEAD"); err != nil {
			copied = false
		}
	}
	if !copied {
		// Start from HEAD, which costs hashing every file once.
		os.Remove(tmp.Name())
		if _, err := git(nil, "read-tree", "HEAD"); err != nil {
			return nil, err
		}
	}
	// Most indexes flag nothing, which reading the copy tells without git;
	// one read from HEAD's tree has no flags.
	var flagged []byte
	if copied && !indexUnflagged(tmp.Name()) {
		if flagged, err = git(nil, "ls-files", "-v", "-z"); err != nil {
			return nil, err
		}
	}
	// One flag per update-index: given both, it applies only one.
	assumed, skipped := flaggedPaths(flagged)
	for flag, paths := range map[string][]byte{"--no-assume-unchanged": assumed, "--no-skip-worktree": skipped} {
		if len(paths) == 0 {
			continue
		}
		if _, err := git(paths, "update-index", flag, "-z", "--stdin"); err != nil {
			return nil, err
		}
	}
	// Written whole (no split index), so that the copy kept stands alone.
	if _, err := git(nil, "-c", "core.splitIndex=false", "add", "-A"); err != nil {
		return nil, err
	}
	// The trees are written here, from the index git just wrote: one git
	// process fewer on verify's path (writetree.go); git writes what this
	// reading leaves to it.
	tree, ok, err := writeIndexTree(repo.CommonDir, tmp.Name())
	if err != nil {
		return nil, err
	}
	if !ok {
		out, err := git(nil, "write-tree")
		if err != nil {
			return nil, err
		}
		tree = strings.TrimSpace(string(out))
	}
	s := &KeptState{Tree: tree}
	if keep {
		if s.index, err = os.ReadFile(tmp.Name()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Unchanged tells whether the worktree still holds s.Tree, with one git
// command instead of the two a new state tree takes: git add --dry-run on
// the index kept lists what adding everything would change, and when it
// lists nothing the index, and so its tree, would stay as it is. Anything
// listed — a change, or a file whose stat git must look at again — is
// false, and the caller writes the tree anew; so is a file whose stat
// differs, to the nanosecond, from what the index recorded (statsHold).
// KeptStateOf keeps the index in this process's memory, where the code
// that runs in between cannot rewrite it.
func (s *KeptState) Unchanged(repo *gitrepo.Repo, m *Meta) (bool, error) {
	tmp, err := os.CreateTemp("", "agentproto-state-index-")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(s.index)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	args := append(append([]string{}, stateConfig...), "-c", "core.splitIndex=false", "add", "-A", "--dry-run")
	out, err := withIndex(Repo(repo, m), tmp.Name(), nil, args...)
	if err != nil {
		return false, err
	}
	return len(out) == 0 && statsHold(m.Path, s.index), nil
}

// flaggedPaths picks from `git ls-files -v -z` the entries marked
// assume-unchanged (a lowercase tag) and those marked skip-worktree (S,
// or s with both), each as NUL-separated input for update-index -z
// --stdin.
func flaggedPaths(listing []byte) (assumed, skipped []byte) {
	for _, rec := range bytes.Split(listing, []byte{0}) {
		if len(rec) < 3 || rec[1] != ' ' {
			continue
		}
		tag, path := rec[0], rec[2:]
		if tag >= 'a' && tag <= 'z' {
			assumed = append(append(assumed, path...), 0)
		}
		if tag == 'S' || tag == 's' {
			skipped = append(append(skipped, path...), 0)
		}
	}
	return assumed, skipped
}

// withIndex runs git in wt with index as its index file.
func withIndex(wt *gitrepo.Repo, index string, stdin []byte, args ...string) ([]byte, error) {
	cmd := wt.Command(args...)
	cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+index)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// DiffTrees lists the paths that differ between two trees or commits.
func DiffTrees(repo *gitrepo.Repo, from, to string) ([]string, error) {
	return repo.DiffTree(from, to)
}
