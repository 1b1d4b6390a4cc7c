package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// escapeRepo makes a frozen two-WP plan whose WP1 turns the file conf into
// a symlink to outside and reports wiring that leaves the repository two
// ways: by "..", and through that symlink. Both name shared files as the
// plan's pattern reads them.
func escapeRepo(t *testing.T, outside string) string {
	t.Helper()
	dir := newRepo(t)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("registry.txt", "# tools\n")
	write("conf", "placeholder\n")
	write("AGENTS.md", "# Definition of done\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "true")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	write(".plans/demo/plan.toml", `name = "demo"
base = "main"
gate = "true"
shared = ["**/registry.txt"]
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/*.md"]
[[wp]]
id = "WP1"
title = "tool"
owns = ["lib/*.sh", "conf"]
depends_on = ["WP0"]
`)
	script := map[string]string{
		"WP0": `{"op":"write","path":"api/contract.md","content":"x\n"}
{"op":"report","report":{"wp":"WP0","files":["api/contract.md"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
		"WP1": `{"op":"write","path":"lib/x.sh","content":"echo x\n"}
{"op":"write","path":"lib/with space.sh","content":"echo s\n"}
{"op":"write","path":"lib/café.sh","content":"echo c\n"}
{"op":"run","cmd":"rm conf && ln -s ` + outside + ` conf"}
{"op":"report","report":{"wp":"WP1","files":["lib/x.sh","lib/with space.sh","lib/café.sh","conf"],"design_choices":[],"wiring":[` +
			`{"file":"registry.txt","line":"x lib/x.sh"},` +
			`{"file":"../registry.txt","line":"escaped by dot-dot"},` +
			`{"file":"conf/registry.txt","line":"escaped through a symlink"}],"exit_codes":[]}}`,
	}
	for wp, s := range script {
		p := filepath.Join(dir, ".plans/demo", wp+"-brief.md")
		b, _ := os.ReadFile(p)
		text := strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)
		text += "\n## Script\n```agentproto-script\n" + s + "\n```\n"
		os.WriteFile(p, []byte(text), 0o644)
	}
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	return dir
}

type consolidation struct {
	DryRun   bool `json:"dry_run"`
	Findings []struct {
		Code, WP, File, Message string
	} `json:"findings"`
	Wiring []struct{ File, Line, Status string } `json:"wiring"`
}

func (c consolidation) codes() map[string]string {
	m := map[string]string{}
	for _, f := range c.Findings {
		m[f.File] = f.Code
	}
	return m
}

// Wiring that names a path outside the repository, or a shared file
// beneath a symlink a merge brought in, is refused by consolidate and its
// dry run alike; nothing is written outside, and the dry run writes
// nothing at all.
func TestConsolidateWiringStaysInside(t *testing.T) {
	outside := t.TempDir()
	dir := escapeRepo(t, outside)
	worktrees := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo")
	escaped := filepath.Join(worktrees, "registry.txt") // integration worktree + "/../registry.txt"
	integ := filepath.Join(worktrees, "demo-integration")
	nothingOutside := func(when string) {
		t.Helper()
		for _, p := range []string{escaped, filepath.Join(outside, "registry.txt")} {
			if _, err := os.Lstat(p); err == nil {
				b, _ := os.ReadFile(p)
				t.Fatalf("%s: consolidate wrote %s outside the repository: %q", when, p, b)
			}
		}
	}
	out := must(t, dir, "git", "agentproto", "dispatch", "demo")
	if !strings.Contains(out, "WP1   verify     pass") {
		t.Fatalf("dispatch:\n%s", out)
	}
	for _, wp := range []string{"WP0", "WP1"} {
		must(t, dir, "git", "agentproto", "checkpoint", "demo", wp)
	}
	if typ := must(t, dir, "git", "cat-file", "-p", "wt/demo-wp1:conf"); strings.TrimSpace(typ) != outside {
		t.Fatalf("WP1's branch should hold conf as a symlink to %s, has %q", outside, typ)
	}
	events := func() string {
		return must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "plan_consolidated", "--json")
	}
	before := events()

	check := func(when string, args ...string) consolidation {
		t.Helper()
		out, errOut, err := sh(t, dir, nil, "git", append([]string{"agentproto", "consolidate", "demo", "--json"}, args...)...)
		var c consolidation
		if jerr := json.Unmarshal([]byte(out), &c); jerr != nil || exitCode(err) != 1 {
			t.Fatalf("%s: exit %d, %v\n%s\n%s", when, exitCode(err), jerr, out, errOut)
		}
		got := c.codes()
		if got["../registry.txt"] != "wiring-path-refused" || got["conf/registry.txt"] != "wiring-through-symlink" {
			t.Fatalf("%s: findings %+v", when, c.Findings)
		}
		nothingOutside(when)
		return c
	}

	// The dry run: the same findings, the valid line listed, nothing made.
	c := check("dry run", "--dry-run")
	if !c.DryRun || len(c.Wiring) != 1 || c.Wiring[0].File != "registry.txt" || c.Wiring[0].Status != "would-apply" {
		t.Fatalf("dry run: %+v", c)
	}
	if _, err := os.Lstat(integ); err == nil {
		t.Fatalf("the dry run made the integration worktree %s", integ)
	}
	if events() != before {
		t.Fatalf("the dry run recorded an event:\n%s", events())
	}

	// The real run refuses, and puts the integration branch back.
	check("consolidate")
	base := strings.TrimSpace(must(t, dir, "git", "rev-parse", "main"))
	if head := strings.TrimSpace(must(t, integ, "git", "rev-parse", "HEAD")); head != base {
		t.Fatalf("integration branch moved to %s (base %s)", head, base)
	}
	if st := must(t, integ, "git", "status", "--porcelain"); st != "" {
		t.Fatalf("integration worktree dirty: %s", st)
	}

	// A dry run beside an existing integration worktree leaves its files
	// as they are, to the nanosecond.
	reg := filepath.Join(integ, "registry.txt")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(reg, old, old); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(reg)
	head := must(t, integ, "git", "rev-parse", "HEAD")
	before = events()
	check("dry run again", "--dry-run")
	fi, err := os.Stat(reg)
	now, _ := os.ReadFile(reg)
	if err != nil || !fi.ModTime().Equal(old) || string(now) != string(text) {
		t.Fatalf("the dry run touched %s: %v %v %q", reg, err, fi.ModTime(), now)
	}
	if must(t, integ, "git", "rev-parse", "HEAD") != head || events() != before {
		t.Fatal("the dry run moved the integration branch or recorded an event")
	}

	// Review reads WP1's committed names whole: a space or a non-ASCII
	// letter in an owned name is no perimeter violation.
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--json")
	if !strings.Contains(out, `"where":"WP1"`) {
		t.Fatalf("review did not run: %v\n%s\n%s", err, out, errOut)
	}
	if strings.Contains(out, "commit-out-of-perimeter") {
		t.Fatalf("review split or quoted a name:\n%s", out)
	}
}
