package worktree

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/sandbox"
)

// Hooks are the worktree hooks of one base revision.
type Hooks struct {
	Commit   string            `json:"commit"`
	Setup    []string          `json:"setup"`
	Copy     []string          `json:"copy"`
	Env      map[string]string `json:"env"`
	Teardown []string          `json:"teardown"`
	// Scripts are the files (and "dir/" directories) of the base tree the
	// commands name, with their object ids at the base: what the commands
	// run is trusted along with their text.
	Scripts map[string]string `json:"scripts,omitempty"`
	// named are the paths the commands may name, whether or not the base
	// has them: one that a checkpoint adds has no trusted version.
	named []string
}

// Empty reports whether there is nothing to run or copy.
func (h *Hooks) Empty() bool {
	return len(h.Setup) == 0 && len(h.Copy) == 0 && len(h.Teardown) == 0
}

// commandsDigest identifies the hook text alone.
func (h *Hooks) commandsDigest() string {
	b, _ := json.Marshal(struct {
		Setup, Copy, Teardown []string
		Env                   map[string]string
	}{h.Setup, h.Copy, h.Teardown, h.Env})
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Digest identifies the hook content (not the commit): the commands and
// the scripts they name. Trusting it once covers every revision with the
// same content; any change to either needs trust again.
func (h *Hooks) Digest() string {
	if len(h.Scripts) == 0 {
		return h.commandsDigest() // as trusted before scripts were covered
	}
	b := append([]byte(h.commandsDigest()+"\n"), encodeScripts(h.Scripts)...)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// HooksAt reads the hooks from agentproto.toml as committed at commit —
// never from a working tree, which an agent could edit — and the scripts
// they name, as committed there too.
func HooksAt(repo *gitrepo.Repo, commit string) (*Hooks, error) {
	h := &Hooks{Commit: commit}
	out, err := repo.Blob(commit, config.FileName)
	if err != nil {
		return h, nil // no agentproto.toml at the base: no hooks
	}
	cfg, err := config.Parse(out, config.FileName+" at "+commit[:12])
	if err != nil {
		return nil, err
	}
	w := cfg.Worktree
	h.Setup, h.Copy, h.Env, h.Teardown = w.Setup, w.Copy, w.Env, w.Teardown
	if h.Empty() {
		return h, nil
	}
	cands := scriptCandidates(append(append([]string{}, h.Setup...), h.Teardown...), h.Env)
	h.named = cands
	if h.Scripts, err = hookScripts(repo, commit, cands); err != nil {
		return nil, err
	}
	if len(h.Scripts) == 0 {
		h.Scripts = nil
	}
	return h, nil
}

func trustFile(repo *gitrepo.Repo) string {
	return filepath.Join(repo.CommonDir, "agentproto", "trusted-hooks")
}

// Trusted reports whether the hook content was trusted on this machine.
func Trusted(repo *gitrepo.Repo, h *Hooks) (bool, error) {
	if h.Empty() {
		return true, nil
	}
	recs, err := readTrust(repo)
	if err != nil {
		return false, err
	}
	d := h.Digest()
	for _, r := range recs {
		if r.digest == d {
			return true, nil
		}
	}
	return false, nil
}

// Trust records the hook content as trusted on this machine.
func Trust(repo *gitrepo.Repo, h *Hooks) (bool, error) {
	if ok, err := Trusted(repo, h); err != nil || ok {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(trustFile(repo)), 0o755); err != nil {
		return false, err
	}
	f, err := os.OpenFile(trustFile(repo), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = fmt.Fprintln(f, trustRecord{digest: h.Digest(), commit: h.Commit, commands: h.commandsDigest(), scripts: h.Scripts}.line())
	return err == nil, err
}

// Describe lists the hooks for a person to read before trusting them.
func (h *Hooks) Describe() string {
	var b strings.Builder
	list := func(name string, items []string) {
		for _, it := range items {
			fmt.Fprintf(&b, "  %-9s %s\n", name, it)
		}
	}
	list("setup", h.Setup)
	list("copy", h.Copy)
	keys := make([]string, 0, len(h.Env))
	for k := range h.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-9s %s=%s\n", "env", k, h.Env[k])
	}
	list("teardown", h.Teardown)
	paths := make([]string, 0, len(h.Scripts))
	for p := range h.Scripts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "  %-9s %s (%.12s at the base; read it before trusting)\n", "runs", p, h.Scripts[p])
	}
	return b.String()
}

// RequireTrust fails with exit 5, listing the hooks and the command that
// trusts them, unless they are trusted. When only the scripts changed since
// the commands were trusted, it names them.
func RequireTrust(repo *gitrepo.Repo, h *Hooks, base string) error {
	ok, err := Trusted(repo, h)
	if err != nil || ok {
		return err
	}
	why := ""
	if changed := changedScripts(repo, h); len(changed) > 0 {
		why = fmt.Sprintf(" (%s changed since they were trusted)", strings.Join(changed, ", "))
	}
	return fault.Refusedf("the worktree hooks of %s are not trusted on this machine%s:\n%sreview them, then run: git agentproto trust --base %s\n(or skip them with --no-setup)", base, why, h.Describe(), base)
}

// HookError is a hook that failed.
type HookError struct {
	Phase    string
	Index    int
	Command  string
	ExitCode int
	Err      error
}

func (e *HookError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s hook %d (%s) failed: %v", e.Phase, e.Index+1, e.Command, e.Err)
	}
	return fmt.Sprintf("%s hook %d (%s) exited with code %d", e.Phase, e.Index+1, e.Command, e.ExitCode)
}

// DefaultHookTimeout bounds one hook when [worktree] hook_timeout is unset.
const DefaultHookTimeout = 10 * time.Minute

// RunHooks runs commands in the worktree, one after the other, streaming
// their output live with a prefix and returning the whole log, scrubbed of
// secrets. The first failure stops the run. Each command is bounded: past
// bound it is ended with every process it started, and fails.
func RunHooks(phase string, cmds []string, m *Meta, env map[string]string, bound time.Duration, live io.Writer) ([]byte, error) {
	if bound <= 0 {
		bound = DefaultHookTimeout
	}
	var log bytes.Buffer
	var mu sync.Mutex
	for i, c := range cmds {
		prefix := fmt.Sprintf("[%s %d/%d] ", phase, i+1, len(cmds))
		fmt.Fprintf(live, "%s$ %s\n", prefix, c)
		fmt.Fprintf(&log, "$ %s\n", c)
		// A hook's command is trusted, but what it runs from the worktree
		// (a script, a sourced helper, an included makefile) may be an
		// agent's: it runs in the sandbox, writing only its worktree.
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		cmd, _, done, err := sandbox.JudgedCommand(ctx, m.Path, hookEnv(m, env), nil, "sh", "-c", c)
		if err != nil {
			cancel()
			return secrets.ScrubBytes(log.Bytes()), &HookError{Phase: phase, Index: i, Command: c, Err: err}
		}
		cmd.Stdin = nil
		pw := &prefixWriter{prefix: prefix, live: live, log: &log, mu: &mu}
		cmd.Stdout, cmd.Stderr = pw, pw
		err = cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		done()
		pw.flush()
		if timedOut {
			fmt.Fprintf(&log, "timed out after %s\n", bound)
			return secrets.ScrubBytes(log.Bytes()), &HookError{Phase: phase, Index: i, Command: c, Err: fmt.Errorf(
				"ran past its bound ([worktree] hook_timeout = %s) and was ended with every process it started", bound)}
		}
		if err != nil {
			he := &HookError{Phase: phase, Index: i, Command: c}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				he.ExitCode = ee.ExitCode()
			} else {
				he.Err = err
			}
			fmt.Fprintf(&log, "exit code %d\n", he.ExitCode)
			return secrets.ScrubBytes(log.Bytes()), he
		}
	}
	return secrets.ScrubBytes(log.Bytes()), nil
}

func hookEnv(m *Meta, extra map[string]string) []string {
	// What a build needs, never our tokens; no GIT_DIR pointing elsewhere.
	env := secrets.ChildEnv()
	env = append(env, "AGENTPROTO_WORKTREE="+m.Path, "AGENTPROTO_SLUG="+m.Slug, "AGENTPROTO_BASE="+m.BaseCommit)
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// prefixWriter copies output line by line to the live stream with a prefix,
// and to the log as is.
type prefixWriter struct {
	prefix string
	live   io.Writer
	log    *bytes.Buffer
	mu     *sync.Mutex
	part   []byte
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.log.Write(p)
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		fmt.Fprintf(w.live, "%s%s\n", w.prefix, w.part[:i])
		w.part = w.part[i+1:]
	}
	return len(p), nil
}

func (w *prefixWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.part) > 0 {
		fmt.Fprintf(w.live, "%s%s\n", w.prefix, w.part)
		w.part = nil
	}
}

// CopyFiles copies the files matching the copy globs from the main worktree
// into the new one, never overwriting a file the checkout wrote. Both sides
// are opened as roots: a glob cannot reach outside the main worktree (a
// symlink there leading out is not read), and nothing is written through a
// symlink the checkout made.
func CopyFiles(mainTree string, globs []string, m *Meta, live io.Writer) ([]string, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	src, err := os.OpenRoot(mainTree)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	dst, err := os.OpenRoot(m.Path)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	var copied []string
	for _, g := range globs {
		pattern, err := repopath.Clean(g)
		if err != nil {
			return copied, fault.Invalidf("[worktree] copy %q: %v", g, err)
		}
		matches, err := fs.Glob(src.FS(), pattern)
		if err != nil {
			return copied, fault.Invalidf("[worktree] copy %q: %v", g, err)
		}
		for _, rel := range matches {
			if _, err := repopath.Resolve(rel, repopath.RootLinks(src)); err != nil {
				fmt.Fprintf(live, "[copy] %s skipped: %v\n", rel, err)
				continue
			}
			fi, err := src.Lstat(filepath.FromSlash(rel))
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if _, err := dst.Lstat(filepath.FromSlash(rel)); err == nil {
				fmt.Fprintf(live, "[copy] %s exists in the worktree; kept\n", rel)
				continue
			}
			if err := repopath.CheckPlain(dst, rel); err != nil {
				return copied, fmt.Errorf("[worktree] copy %s: %v", rel, err)
			}
			b, err := src.ReadFile(filepath.FromSlash(rel))
			if err != nil {
				return copied, err
			}
			if dir := filepath.Dir(filepath.FromSlash(rel)); dir != "." {
				if err := dst.MkdirAll(dir, 0o755); err != nil {
					return copied, err
				}
			}
			f, err := dst.OpenFile(filepath.FromSlash(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
			if err != nil {
				return copied, err
			}
			_, err = f.Write(b)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return copied, err
			}
			fmt.Fprintf(live, "[copy] %s\n", rel)
			copied = append(copied, rel)
		}
	}
	return copied, nil
}

// MarkFailed records a failed setup in the worktree's metadata; the
// worktree is kept for inspection.
func MarkFailed(repo *gitrepo.Repo, m *Meta, err error) error {
	m.State = StateSetupFailed
	m.Failure = err.Error()
	return writeMeta(repo, m)
}
