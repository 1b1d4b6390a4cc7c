package worktree

import (
	"bytes"
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
	"github.com/agentproto/agentproto/internal/secrets"
)

// Hooks are the worktree hooks of one base revision.
type Hooks struct {
	Commit   string            `json:"commit"`
	Setup    []string          `json:"setup"`
	Copy     []string          `json:"copy"`
	Env      map[string]string `json:"env"`
	Teardown []string          `json:"teardown"`
}

// Empty reports whether there is nothing to run or copy.
func (h *Hooks) Empty() bool {
	return len(h.Setup) == 0 && len(h.Copy) == 0 && len(h.Teardown) == 0
}

// Digest identifies the hook content (not the commit): trusting it once
// covers every revision with the same hooks; any change needs trust again.
func (h *Hooks) Digest() string {
	b, _ := json.Marshal(struct {
		Setup, Copy, Teardown []string
		Env                   map[string]string
	}{h.Setup, h.Copy, h.Teardown, h.Env})
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// HooksAt reads the hooks from agentproto.toml as committed at commit —
// never from a working tree, which an agent could edit.
func HooksAt(repo *gitrepo.Repo, commit string) (*Hooks, error) {
	h := &Hooks{Commit: commit}
	out, err := repo.Git("cat-file", "blob", commit+":"+config.FileName)
	if err != nil {
		return h, nil // no agentproto.toml at the base: no hooks
	}
	cfg, err := config.Parse(out, config.FileName+" at "+commit[:12])
	if err != nil {
		return nil, err
	}
	w := cfg.Worktree
	h.Setup, h.Copy, h.Env, h.Teardown = w.Setup, w.Copy, w.Env, w.Teardown
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
	b, err := os.ReadFile(trustFile(repo))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	d := h.Digest()
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == d {
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
	_, err = fmt.Fprintf(f, "%s %s %s\n", h.Digest(), time.Now().UTC().Format(time.RFC3339), h.Commit)
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
	return b.String()
}

// RequireTrust fails with exit 5, listing the hooks and the command that
// trusts them, unless they are trusted.
func RequireTrust(repo *gitrepo.Repo, h *Hooks, base string) error {
	ok, err := Trusted(repo, h)
	if err != nil || ok {
		return err
	}
	return fault.Refusedf("the worktree hooks of %s are not trusted on this machine:\n%sreview them, then run: git agentproto trust --base %s\n(or skip them with --no-setup)", base, h.Describe(), base)
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

// RunHooks runs commands in the worktree, one after the other, streaming
// their output live with a prefix and returning the whole log, scrubbed of
// secrets. The first failure stops the run.
func RunHooks(phase string, cmds []string, m *Meta, env map[string]string, live io.Writer) ([]byte, error) {
	var log bytes.Buffer
	var mu sync.Mutex
	for i, c := range cmds {
		prefix := fmt.Sprintf("[%s %d/%d] ", phase, i+1, len(cmds))
		fmt.Fprintf(live, "%s$ %s\n", prefix, c)
		fmt.Fprintf(&log, "$ %s\n", c)
		cmd := exec.Command("sh", "-c", c)
		cmd.Dir = m.Path
		cmd.Env = hookEnv(m, env)
		cmd.Stdin = nil
		pw := &prefixWriter{prefix: prefix, live: live, log: &log, mu: &mu}
		cmd.Stdout, cmd.Stderr = pw, pw
		err := cmd.Run()
		pw.flush()
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
// into the new one, never overwriting a file the checkout wrote.
func CopyFiles(mainTree string, globs []string, m *Meta, live io.Writer) ([]string, error) {
	var copied []string
	for _, g := range globs {
		matches, err := filepath.Glob(filepath.Join(mainTree, g))
		if err != nil {
			return copied, fault.Invalidf("[worktree] copy %q: %v", g, err)
		}
		for _, src := range matches {
			rel, err := filepath.Rel(mainTree, src)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			fi, err := os.Lstat(src)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			dst := filepath.Join(m.Path, rel)
			if _, err := os.Lstat(dst); err == nil {
				fmt.Fprintf(live, "[copy] %s exists in the worktree; kept\n", rel)
				continue
			}
			b, err := os.ReadFile(src)
			if err != nil {
				return copied, err
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return copied, err
			}
			if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
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
