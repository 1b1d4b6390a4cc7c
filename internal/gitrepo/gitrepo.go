// Package gitrepo finds the repository a command runs in and runs the git CLI
// against it. Discovery is done in-process for the common layouts because a
// git subprocess costs more than the fastest commands are allowed to take.
package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
)

// Repo is one repository as seen from one working directory.
type Repo struct {
	// GitDir is the per-worktree git directory (".git" of the main worktree,
	// or the admin dir of a linked worktree).
	GitDir string
	// CommonDir holds objects, refs and config shared by all worktrees.
	CommonDir string
	// WorkTree is the top of the working tree; empty in a bare repository.
	WorkTree string
}

// ErrNotRepository is returned when no repository contains the directory.
var ErrNotRepository = errors.New("not a git repository (or any of the parent directories)")

// Discover finds the repository containing dir, honouring GIT_DIR,
// GIT_WORK_TREE, GIT_COMMON_DIR and GIT_CEILING_DIRECTORIES. `git -C`
// needs nothing here: git changes directory before it runs a subcommand.
func Discover(dir string) (*Repo, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if os.Getenv("GIT_DIR") != "" {
		return discoverWithGit(dir)
	}
	ceiling := ceilingOf(dir)
	for d := dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		if err == nil && fi.IsDir() && looksLikeGitDir(dotgit) {
			return finish(dotgit, d)
		}
		if err == nil && fi.Mode().IsRegular() {
			gd, err := readGitFile(dotgit)
			if err != nil {
				return nil, err
			}
			return finish(gd, d)
		}
		if looksLikeGitDir(d) {
			return finish(d, "")
		}
		if parent := filepath.Dir(d); parent == d || len(parent) <= len(ceiling) {
			return nil, fault.Wrap(fault.Invalid, ErrNotRepository)
		}
	}
}

// ceilingOf returns the deepest directory of GIT_CEILING_DIRECTORIES that
// is a proper ancestor of dir: as git, discovery never goes up into it.
// Relative entries are ignored, as git ignores them.
func ceilingOf(dir string) string {
	deepest := ""
	for _, c := range filepath.SplitList(os.Getenv("GIT_CEILING_DIRECTORIES")) {
		if c == "" || !filepath.IsAbs(c) {
			continue
		}
		c = filepath.Clean(c)
		if real, err := filepath.EvalSymlinks(c); err == nil {
			c = real
		}
		if rel, err := filepath.Rel(c, dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && len(c) > len(deepest) {
			deepest = c
		}
	}
	return deepest
}

func looksLikeGitDir(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

// readGitFile resolves a ".git" file ("gitdir: PATH") to the directory it names.
func readGitFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(b))
	target, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok {
		return "", fmt.Errorf("invalid gitfile format: %s", path)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return filepath.Clean(target), nil
}

func finish(gitDir, workTree string) (*Repo, error) {
	common := gitDir
	if env := os.Getenv("GIT_COMMON_DIR"); env != "" {
		common = env
	} else if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	}
	return &Repo{GitDir: gitDir, CommonDir: common, WorkTree: workTree}, nil
}

// discoverWithGit asks git itself when GIT_DIR is set: the rules for the work
// tree in that case (core.worktree, GIT_WORK_TREE, cwd) are git's to apply.
func discoverWithGit(dir string) (*Repo, error) {
	cmd := exec.Command("git", "rev-parse", "--absolute-git-dir", "--git-common-dir", "--is-bare-repository", "--show-toplevel")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if err != nil || len(lines) < 3 {
		// --show-toplevel fails in a bare repository; retry without it.
		cmd = exec.Command("git", "rev-parse", "--absolute-git-dir", "--git-common-dir")
		cmd.Dir = dir
		out, err = cmd.Output()
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = ErrNotRepository.Error()
			}
			return nil, fault.Invalidf("%s", strings.TrimPrefix(msg, "fatal: "))
		}
		lines = strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		lines = append(lines, "true")
	}
	r := &Repo{GitDir: lines[0], CommonDir: lines[1]}
	if !filepath.IsAbs(r.CommonDir) {
		r.CommonDir = filepath.Join(dir, r.CommonDir)
	}
	r.CommonDir = filepath.Clean(r.CommonDir)
	if lines[2] != "true" && len(lines) > 3 {
		r.WorkTree = lines[3]
	}
	return r, nil
}

// Path joins elements under the common git dir.
func (r *Repo) Path(elem ...string) string {
	return filepath.Join(append([]string{r.CommonDir}, elem...)...)
}

// Git runs the git CLI on this repository and returns its stdout. A non-zero
// exit becomes an error carrying git's stderr.
func (r *Repo) Git(args ...string) ([]byte, error) {
	return r.GitInput(nil, args...)
}

// GitInput is Git with stdin.
func (r *Repo) GitInput(stdin []byte, args ...string) ([]byte, error) {
	cmd := r.Command(args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, &GitError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return out, nil
}

// Command prepares a git command that runs against this repository whatever
// the caller's working directory.
func (r *Repo) Command(args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Env = os.Environ()
	if r.WorkTree != "" {
		cmd.Dir = r.WorkTree
	} else {
		cmd.Dir = r.GitDir
	}
	if os.Getenv("GIT_DIR") != "" {
		cmd.Env = append(cmd.Env, "GIT_DIR="+r.GitDir)
		if r.WorkTree != "" {
			cmd.Env = append(cmd.Env, "GIT_WORK_TREE="+r.WorkTree)
		}
	}
	return cmd
}

// GitError is a failed git invocation.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// GitRecords runs git for output that may be many megabytes (log over a
// whole ledger) and calls fn with each NUL-terminated record as it arrives,
// so the caller's work overlaps git's. It asks git not to flush after each
// commit, which matters several-fold on a pipe. fn must not keep rec.
func (r *Repo) GitRecords(fn func(rec []byte) error, args ...string) error {
	cmd := r.Command(args...)
	cmd.Env = append(cmd.Env, "GIT_FLUSH=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	growPipe(pipe)
	if err := cmd.Start(); err != nil {
		return err
	}
	buf := make([]byte, 0, 1<<20)
	var fnErr error
	for {
		if len(buf) == cap(buf) {
			buf = append(make([]byte, 0, 2*cap(buf)), buf...)
		}
		n, rerr := pipe.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		start := 0
		for fnErr == nil {
			i := bytes.IndexByte(buf[start:], 0)
			if i < 0 {
				break
			}
			fnErr = fn(buf[start : start+i])
			start += i + 1
		}
		buf = buf[:copy(buf, buf[start:])]
		if rerr != nil || fnErr != nil {
			break
		}
	}
	if fnErr != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return fnErr
	}
	if len(bytes.TrimSpace(buf)) > 0 {
		if err := fn(buf); err != nil {
			cmd.Wait()
			return err
		}
	}
	if err := cmd.Wait(); err != nil {
		return &GitError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return nil
}
