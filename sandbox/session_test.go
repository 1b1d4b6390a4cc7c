package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/sandbox"
)

// repoWithWorktree makes a repository and a linked worktree on a wt/
// branch with the real git, as provisioning leaves them.
func repoWithWorktree(t *testing.T) (main, common, wt string) {
	t.Helper()
	root := t.TempDir()
	main, wt = filepath.Join(root, "main"), filepath.Join(root, "wts", "p-wp1")
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@e")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git(root, "init", "-q", "-b", "main", main)
	git(main, "commit", "-q", "--allow-empty", "-m", "initial")
	git(main, "worktree", "add", "-q", "-b", "wt/p-wp1", wt)
	return main, filepath.Join(main, ".git"), wt
}

func TestForSessionInAWorktree(t *testing.T) {
	main, common, wt := repoWithWorktree(t)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	p, err := sandbox.ForSession(sandbox.SessionSpec{Dir: wt, CommonDir: common, WorkTree: main, Runtime: "/run/user/1/agentproto-1",
		Home: home, Path: "/usr/bin:/opt/x/node_modules/.bin:" + filepath.Join(home, "bin"), Tmp: "/run/user/1/agentproto-1/t", Sockets: "/run/user/1/agentproto-1/s",
		Writable: []string{"/var/cache/mine"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{wt, filepath.Join(common, "worktrees", "p-wp1"), filepath.Join(common, "objects"),
		filepath.Join(common, "refs", "heads", "wt"), filepath.Join(common, "logs", "refs", "heads", "wt"),
		"/run/user/1/agentproto-1/t", "/run/user/1/agentproto-1/s", filepath.Join(home, ".codex"), "/var/cache/mine"} {
		if !slices.Contains(p.Write, w) {
			t.Errorf("%s is not writable: %v", w, p.Write)
		}
	}
	for _, denied := range []string{main, common, filepath.Join(common, "hooks"), filepath.Join(common, "config"),
		filepath.Join(common, "refs", "agentproto"), filepath.Join(common, "refs", "heads", "main"), home, "/tmp", "/run/user/1/agentproto-1/x.token"} {
		if p.Writable(denied) {
			t.Errorf("%s is writable", denied)
		}
	}
	for _, r := range []string{common, "/opt/x/node_modules", "/opt/x/node_modules/.bin", filepath.Join(home, "bin")} {
		if !slices.Contains(p.Read, r) {
			t.Errorf("%s is not readable: %v", r, p.Read)
		}
	}
	for _, r := range p.Read {
		if r == home || r == main || r == "/tmp" || strings.HasPrefix(r, "/run/user/1/agentproto-1") {
			t.Errorf("%s is readable", r)
		}
	}
}

// A worktree whose .git file an agent pointed elsewhere (at the common
// dir itself, whose write right would open hooks and config) is refused.
func TestForSessionRefusesARedirectedWorktree(t *testing.T) {
	_, common, wt := repoWithWorktree(t)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+common+"\n"), 0o644)
	if _, err := sandbox.ForSession(sandbox.SessionSpec{Dir: wt, CommonDir: common}); err == nil || !strings.Contains(err.Error(), "not an admin dir") {
		t.Fatalf("err = %v", err)
	}
}

// Configured writable paths add, never remove a denial.
func TestForSessionRefusesWritablePathsOverDenials(t *testing.T) {
	main, common, wt := repoWithWorktree(t)
	home := t.TempDir()
	for _, w := range []string{common, filepath.Join(common, "hooks"), main, filepath.Dir(main), home, filepath.Join(home, ".config", "gh"), "/", "relative"} {
		_, err := sandbox.ForSession(sandbox.SessionSpec{Dir: wt, CommonDir: common, WorkTree: main, Home: home, Writable: []string{w}})
		if err == nil {
			t.Errorf("writable %s was accepted", w)
		}
	}
}

// Started in the main checkout, every entry but .git is writable, and the
// git dir is not.
func TestForSessionInTheMainCheckout(t *testing.T) {
	main, common, _ := repoWithWorktree(t)
	os.WriteFile(filepath.Join(main, "a.go"), nil, 0o644)
	os.WriteFile(filepath.Join(main, "agentproto.toml"), nil, 0o644)
	p, err := sandbox.ForSession(sandbox.SessionSpec{Dir: main, CommonDir: common, WorkTree: main})
	if err != nil {
		t.Fatal(err)
	}
	// agentproto.toml holds the budgets the daemon enforces: never the
	// session's to write.
	if !p.Writable(filepath.Join(main, "a.go")) || p.Writable(common) || p.Writable(filepath.Join(common, "hooks", "pre-commit")) ||
		p.Writable(filepath.Join(main, "agentproto.toml")) {
		t.Fatalf("writes: %v", p.Write)
	}
}

// A script the adapter's options name by absolute path is readable (its
// directory), as is the package a CLI's binary link resolves into.
func TestForSessionReadsWhatTheOptionsName(t *testing.T) {
	root := t.TempDir()
	scripts := filepath.Join(root, "agents")
	pkg := filepath.Join(root, "nm", "node_modules", "@x", "cli")
	bin := filepath.Join(root, "nm", "node_modules", ".bin")
	for _, d := range []string{scripts, pkg, bin} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(scripts, "agent.sh"), nil, 0o755)
	os.WriteFile(filepath.Join(pkg, "cli.js"), nil, 0o755)
	os.Symlink("../@x/cli/cli.js", filepath.Join(bin, "cli"))
	p, err := sandbox.ForSession(sandbox.SessionSpec{Options: map[string]string{
		"command": "sh " + filepath.Join(scripts, "agent.sh") + " {prompt}", "binary": filepath.Join(bin, "cli"), "model": "/not/there"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{scripts, bin, filepath.Join(root, "nm", "node_modules")} {
		if !slices.Contains(p.Read, want) {
			t.Errorf("%s not readable: %v", want, p.Read)
		}
	}
	if slices.Contains(p.Read, "/not") || slices.Contains(p.Read, root) {
		t.Errorf("too much readable: %v", p.Read)
	}
}

// Caches the environment moves are writable, but one set to HOME or /
// opens nothing.
func TestCachesTheEnvironmentNames(t *testing.T) {
	p, err := sandbox.ForSession(sandbox.SessionSpec{Home: "/home/u", CacheEnv: []string{"HOME=/home/u", "GOCACHE=/var/cache/go", "GOMODCACHE=/", "PIP_CACHE_DIR=/home", "npm_config_cache=relative"}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Writable("/var/cache/go/x") || p.Writable("/etc/passwd") || p.Writable("/home/u/.ssh/id") {
		t.Fatalf("writes: %v", p.Write)
	}
}

// A work package's session writes the perimeter's directories of its
// worktree, made when missing, and not the rest of the worktree; a
// directory that is a link out of the worktree is refused.
func TestForSessionWithinThePerimeter(t *testing.T) {
	_, common, wt := repoWithWorktree(t)
	p, err := sandbox.ForSession(sandbox.SessionSpec{Dir: wt, CommonDir: common, Within: []string{"src/api", "docs"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{filepath.Join(wt, "src", "api"), filepath.Join(wt, "docs"), filepath.Join(common, "objects")} {
		if !slices.Contains(p.Write, w) {
			t.Errorf("%s is not writable: %v", w, p.Write)
		}
		if fi, err := os.Stat(w); err != nil || !fi.IsDir() {
			t.Errorf("%s was not made: %v", w, err)
		}
	}
	for _, denied := range []string{wt, filepath.Join(wt, "README.md"), filepath.Join(wt, "src", "other")} {
		if p.Writable(denied) {
			t.Errorf("%s is writable", denied)
		}
	}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(wt, "out"))
	for _, bad := range []string{"out/x", "out", "../x", "/etc"} {
		if _, err := sandbox.ForSession(sandbox.SessionSpec{Dir: wt, CommonDir: common, Within: []string{bad}}); err == nil {
			t.Errorf("perimeter directory %q was accepted", bad)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("a directory was made through the link: %v", entries)
	}
}
