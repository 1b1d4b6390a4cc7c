package bench

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The git commands a WP cannot do without while git reads the worktree
// and makes the commit, with the arguments the pipeline gives them.
var (
	// statusOutside is the main checkout's status: the outside as it was
	// before the session, and again after the gate.
	statusOutside = []string{"--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"}
	// statusHidden and addAll are the state tree verify takes after the
	// turn: the index git writes, and the status that finds a change the
	// index cannot show.
	statusHidden = []string{"status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames"}
	addAll       = []string{"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "core.splitIndex=false", "add", "-A"}
	// addDryRun tells, after the gate and again at checkpoint, whether the
	// worktree still holds the tree verify checked.
	addDryRun = append(append([]string(nil), addAll...), "--dry-run")
)

// gitFloor runs, one step after the other as a WP needs them, the git
// commands no WP can do without while git is what reads the worktree and
// writes the commit — the outside's status before the session; verify's
// state tree after the turn (add and status, at once as verify runs
// them); after the gate, the worktree's and the outside's checks at once;
// checkpoint's commit beside its check, then the branch's update — and
// returns their time. The worktree, the agent's file and the tree object
// are made untimed: the worktree is made in-process, the file is the
// agent's, and verify writes the trees from the index itself. Left out,
// as work that could move in-process: the reads of git's configuration.
func (r *runner) gitFloor(p string) time.Duration {
	r.b.Helper()
	wt := filepath.Join(filepath.Dir(r.dir), "floor-"+p)
	branch := "floor/" + p
	r.must(r.dir, nil, "git", "worktree", "add", "-q", "-b", branch, wt, "main")
	base := strings.TrimSpace(string(r.must(wt, nil, "git", "rev-parse", "HEAD")))
	var spent time.Duration
	step := func(cmds ...gitCmd) {
		start := time.Now()
		r.together(cmds...)
		spent += time.Since(start)
	}
	step(gitCmd{dir: r.dir, args: statusOutside})
	os.MkdirAll(filepath.Join(wt, p), 0o755) // the agent's turn
	os.WriteFile(filepath.Join(wt, p, "x.txt"), []byte("x\n"), 0o644)
	// verify's index is a copy of the worktree's, out of the agent's reach.
	index := r.copyIndex(filepath.Join(r.dir, ".git", "worktrees", "floor-"+p, "index"))
	step(gitCmd{dir: wt, args: addAll, index: index}, gitCmd{dir: wt, args: statusHidden})
	_, tree := r.runEnv([]string{"GIT_INDEX_FILE=" + index}, wt, nil, "git", "write-tree")
	var afterGate, atCheckpoint, commit []byte
	step(gitCmd{dir: wt, args: addDryRun, index: r.copyIndex(index), out: &afterGate}, gitCmd{dir: r.dir, args: statusOutside})
	kept := r.copyIndex(index)
	step(gitCmd{dir: wt, args: []string{"commit-tree", strings.TrimSpace(string(tree)), "-p", base, "-m", "WP0"}, out: &commit}, gitCmd{dir: wt, args: addDryRun, index: kept, out: &atCheckpoint})
	id := strings.TrimSpace(string(commit))
	step(gitCmd{dir: r.dir, args: []string{"update-ref", "-m", "checkpoint " + p, "refs/heads/" + branch, id, base}})
	// The work was done: the checks found the tree verify took, and the
	// branch holds the agent's file.
	if len(afterGate) > 0 || len(atCheckpoint) > 0 {
		r.b.Fatalf("add --dry-run found changes after the state tree: %q %q", afterGate, atCheckpoint)
	}
	if got := r.must(r.dir, nil, "git", "cat-file", "-p", branch+":"+p+"/x.txt"); string(got) != "x\n" {
		r.b.Fatalf("%s holds %q, not the agent's file", branch, got)
	}
	return spent
}

// gitCmd is one git command of a step; index, when set, is its index
// file; out, when set, takes its stdout.
type gitCmd struct {
	dir, index string
	args       []string
	out        *[]byte
}

// copyIndex copies an index file to a new one and returns its path.
func (r *runner) copyIndex(from string) string {
	r.b.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		r.b.Fatal(err)
	}
	to := filepath.Join(r.b.TempDir(), "index")
	if err := os.WriteFile(to, b, 0o600); err != nil {
		r.b.Fatal(err)
	}
	return to
}

// together runs cmds at once and waits for all of them; any failure
// stops the benchmark.
func (r *runner) together(cmds ...gitCmd) {
	r.b.Helper()
	errs := make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var env []string
			if c.index != "" {
				env = []string{"GIT_INDEX_FILE=" + c.index}
			}
			out, err := r.try(env, c.dir, nil, "git", c.args...)
			errs[i] = err
			if c.out != nil {
				*c.out = out
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			r.b.Fatal(err)
		}
	}
}
