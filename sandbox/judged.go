package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A judged run is agent-written code run by a judge: a gate, a test
// runner, a mutant's tests. It runs confined like a session — it may
// write only the directory it runs in, a private temporary directory and
// the package caches; it reads no token (none in its environment, no
// process outside it, not gh's hosts.yml) — and bounded: when it ends or
// its context does, every process it started is killed, detached ones
// included, by the launcher holding its tree.

// JudgedConfig is what the configuration says of judged runs.
type JudgedConfig struct {
	Mode               Mode
	Writable, Readable []string
}

var (
	judgedMu     sync.Mutex
	judgedConfig = func() JudgedConfig { return JudgedConfig{Mode: ModeAuto} }
	probeOnce    = sync.OnceValue(Probe)
)

// ConfigureJudged sets where the configuration of judged runs comes from
// (read on each run, so a command that never runs one never loads it).
func ConfigureJudged(f func() JudgedConfig) {
	judgedMu.Lock()
	defer judgedMu.Unlock()
	judgedConfig = f
}

func currentJudged() JudgedConfig {
	judgedMu.Lock()
	f := judgedConfig
	judgedMu.Unlock()
	return f()
}

// WaitGrace bounds how long a judged run's pipes are waited for once it
// has ended or been stopped: a child that still holds them is killed.
const WaitGrace = 3 * time.Second

// JudgedCommand prepares name args to run in dir as a judged run with
// env (which must hold no secret: secrets.ChildEnv); writable adds the
// places the judge gives the run (its reporters' files). done removes the
// run's temporary directory once it has finished. confined says whether
// the kernel holds it; without the sandbox (mode off, or auto where the
// kernel cannot) its tree is still ended with it where the launcher is
// installed, and its process group otherwise. A required sandbox that
// cannot run is an error, before anything runs.
func JudgedCommand(ctx context.Context, dir string, env, writable []string, name string, args ...string) (cmd *exec.Cmd, confined bool, done func(), err error) {
	cfg := currentJudged()
	sup := probeOnce()
	if cfg.Mode == ModeRequired && !sup.OK() {
		return nil, false, nil, &UnavailableError{Missing: sup.Missing}
	}
	tmp, err := os.MkdirTemp("", "agentproto-judged-")
	if err != nil {
		return nil, false, nil, err
	}
	done = func() { os.RemoveAll(tmp) }
	env = append(withoutKey(env, "TMPDIR"), "TMPDIR="+tmp)
	policy := Policy{Hold: true}
	if cfg.Mode != ModeOff && sup.OK() {
		policy = judgedPolicy(dir, env, tmp, cfg)
		policy.Write = append(policy.Write, writable...)
		// A tool the command names by absolute path (a gate's
		// /opt/tools/node_modules/.bin/jest) is what it was set to run.
		policy.Read = append(policy.Read, optionReadable(map[string]string{"command": strings.Join(append([]string{name}, args...), " ")}, secretHolders(lookup(env, "HOME")))...)
		confined = true
	}
	if sup.Launcher == "" {
		cmd = exec.CommandContext(ctx, name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	} else {
		cmd = launcherCommand(ctx, sup.Launcher, append([]string{policy.Encode(), "--", name}, args...))
	}
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, WaitGrace
	return cmd, confined, done, nil
}

// UnavailableError is a required sandbox that cannot run here.
type UnavailableError struct{ Missing string }

func (e *UnavailableError) Error() string {
	return `the sandbox is required ([sandbox] mode = "required") but ` + e.Missing + "; nothing was run"
}

// judgedPolicy: the directory it runs in, its temporary directory and
// the caches are writable; the system, its PATH, the repository's git
// dir and git's configuration are readable; nothing else.
func judgedPolicy(dir string, env []string, tmp string, cfg JudgedConfig) Policy {
	home, path := lookup(env, "HOME"), lookup(env, "PATH")
	p := Policy{Devices: devices}
	p.Read = append(p.Read, systemRoots...)
	p.Read = append(p.Read, spare(pathReadable(path, home), secretHolders(home))...)
	if common := commonDirOf(dir); common != "" {
		p.Read = append(p.Read, common)
	}
	for _, rel := range homeReadable {
		p.Read = append(p.Read, inHome(home, rel)...)
	}
	p.Read = append(p.Read, cfg.Readable...)
	p.Write = append(p.Write, dir, tmp)
	for _, rel := range homeCaches {
		p.Write = append(p.Write, inHome(home, rel)...)
	}
	p.Write = append(p.Write, envCaches(env)...)
	if c := goBuildCache(env); c != "" {
		p.Write = append(p.Write, c)
	}
	p.Write = append(p.Write, cfg.Writable...)
	return p
}

// commonDirOf is the git dir shared by the worktree at dir: dir/.git, or
// what its .git file and the admin dir's commondir say; "" for a plain
// directory (a review's copy).
func commonDirOf(dir string) string {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return dotgit
	}
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return ""
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return ""
	}
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(dir, admin)
	}
	c, err := os.ReadFile(filepath.Join(admin, "commondir"))
	if err != nil {
		return ""
	}
	common := strings.TrimSpace(string(c))
	if !filepath.IsAbs(common) {
		common = filepath.Join(admin, common)
	}
	return filepath.Clean(common)
}

// envCaches are the caches the environment names elsewhere than their
// default places; one that is or holds HOME or / (a mistake, or worse) is
// left out.
func envCaches(env []string) []string {
	home := filepath.Clean(lookup(env, "HOME"))
	var cands []string
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "PIP_CACHE_DIR", "YARN_CACHE_FOLDER", "CARGO_HOME"} {
		cands = append(cands, lookup(env, k))
	}
	if v := lookup(env, "GOPATH"); v != "" {
		cands = append(cands, filepath.Join(v, "pkg", "mod"))
	}
	var out []string
	for _, c := range cands {
		c = filepath.Clean(c)
		if !filepath.IsAbs(c) || c == "/" || within(c, home) {
			continue
		}
		out = append(out, c)
	}
	return out
}

func lookup(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

func withoutKey(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
