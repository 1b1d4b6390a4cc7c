package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkoutRepo makes a repository holding files (committed with the
// attributes they carry) and a frozen one-WP plan whose gate runs gate in
// the WP's worktree; the scripted executor writes lib/tool.sh. setup runs
// before the files are committed.
func checkoutRepo(t *testing.T, files map[string]string, gate string, setup func(dir string)) string {
	t.Helper()
	dir := newRepo(t)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		write(name, text)
	}
	write("gate.sh", gate)
	write("AGENTS.md", "# Definition of done\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\n")
	if setup != nil {
		setup(dir)
	}
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "sh gate.sh")
	write(".plans/demo/plan.toml", `name = "demo"
base = "main"
gate = "sh gate.sh"
[[wp]]
id = "WP0"
title = "tool"
owns = ["lib/**"]
`)
	p := filepath.Join(dir, ".plans/demo/WP0-brief.md")
	b, _ := os.ReadFile(p)
	text := strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)
	text += "\n## Script\n```agentproto-script\n" +
		`{"op":"write","path":"lib/tool.sh","content":"echo tool\n"}` + "\n" +
		`{"op":"report","report":{"wp":"WP0","files":["lib/tool.sh"],"design_choices":[],"wiring":[],"exit_codes":[]}}` +
		"\n```\n"
	os.WriteFile(p, []byte(text), 0o644)
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	return dir
}

// dispatchAndCheck dispatches the plan, requires WP0 verified, and
// returns the WP's worktree record from worktree ls --json.
func dispatchAndCheck(t *testing.T, dir string) map[string]any {
	t.Helper()
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil || !strings.Contains(out, "WP0   verify     pass") {
		t.Fatalf("dispatch: %v\n%s%s", err, out, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "worktree", "ls", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r["slug"] == "demo-wp0" {
			return r
		}
	}
	t.Fatalf("no worktree demo-wp0 in %v", rows)
	return nil
}

// TestDispatchOnTextAutoEOLLF: a repository whose .gitattributes says
// "* text=auto eol=lf" (as go-git's own does) is dispatched on our fast
// checkout; the WP's worktree holds the files as git would write them
// and shows only the agent's change.
func TestDispatchOnTextAutoEOLLF(t *testing.T) {
	dir := checkoutRepo(t, map[string]string{
		".gitattributes": "* text=auto eol=lf\n*.png binary\n",
		"src/main.go":    "package main\n\nfunc main() {}\n",
		"img/logo.png":   "\x89PNG\r\n\x1a\n\x00\x00",
	}, "test \"$(cat src/main.go)\" = \"$(printf 'package main\\n\\nfunc main() {}')\" && test -f lib/tool.sh\n", nil)
	row := dispatchAndCheck(t, dir)
	if row["checkout"] != "fast" {
		t.Errorf("worktree ls --json: checkout %v (%v), want fast", row["checkout"], row["checkout_reason"])
	}
	wt := row["path"].(string)
	if b, _ := os.ReadFile(filepath.Join(wt, "img/logo.png")); string(b) != "\x89PNG\r\n\x1a\n\x00\x00" {
		t.Errorf("img/logo.png holds %q", b)
	}
	if st := must(t, wt, "git", "status", "--porcelain", "--untracked-files=all"); st != "?? lib/tool.sh\n" {
		t.Errorf("git status in the WP's worktree shows more than the agent's file:\n%s", st)
	}
	events := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "wp_verified", "--json")
	if !strings.Contains(events, `"verdict":"pass"`) && !strings.Contains(events, `"verdict": "pass"`) {
		t.Errorf("no passing wp_verified event:\n%s", events)
	}
}

// TestDispatchOnLFS: a repository with Git LFS files is dispatched on
// git's checkout; the gate, run in the WP's worktree, sees the content,
// not the pointer. Needs git-lfs.
func TestDispatchOnLFS(t *testing.T) {
	if _, err := exec.LookPath("git-lfs"); err != nil {
		t.Skip("git-lfs is not installed (apt-get install git-lfs): dispatch on LFS files is not tested")
	}
	content := strings.Repeat("asset bytes ", 500)
	dir := checkoutRepo(t, map[string]string{"assets/data.bin": content},
		"grep -q 'asset bytes' assets/data.bin && ! grep -q git-lfs assets/data.bin && test -f lib/tool.sh\n",
		func(dir string) {
			must(t, dir, "git", "lfs", "install", "--local")
			must(t, dir, "git", "lfs", "track", "*.bin")
		})
	if blob := must(t, dir, "git", "cat-file", "-p", "HEAD:assets/data.bin"); !strings.HasPrefix(blob, "version https://git-lfs") {
		t.Fatalf("assets/data.bin is not stored as an LFS pointer: %.80q", blob)
	}
	row := dispatchAndCheck(t, dir)
	if row["checkout"] != "git" || !strings.Contains(row["checkout_reason"].(string), "filter=lfs") {
		t.Errorf("worktree ls --json: checkout %v (%v), want git for filter=lfs", row["checkout"], row["checkout_reason"])
	}
	wt := row["path"].(string)
	if b, _ := os.ReadFile(filepath.Join(wt, "assets/data.bin")); string(b) != content {
		t.Errorf("assets/data.bin holds %.60q, want its content", b)
	}
	out := must(t, dir, "git", "agentproto", "worktree", "ls")
	if !strings.Contains(out, "[git checkout: filter=lfs on assets/data.bin]") {
		t.Errorf("worktree ls does not say git's checkout was used:\n%s", out)
	}
}
