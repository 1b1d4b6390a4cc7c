package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const basePackageJSON = `{
  "name": "demo",
  "version": "1.0.0",
  "scripts": {
    "build": "tsc"
  }
}
`

// configRepo makes a frozen two-WP plan over a repository whose
// package.json is shared; each WP writes its own script and reports a
// snippet for package.json's scripts, wp1Snippet and wp2Snippet. The WPs
// are dispatched, verified and checkpointed.
func configRepo(t *testing.T, wp1Snippet, wp2Snippet string) string {
	t.Helper()
	dir := newRepo(t)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", basePackageJSON)
	write("AGENTS.md", "# Definition of done\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "true")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP2")
	write(".plans/demo/plan.toml", `name = "demo"
base = "main"
gate = "true"
shared = ["package.json"]
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/*.md"]
[[wp]]
id = "WP1"
title = "unit tests"
owns = ["t/unit.sh"]
depends_on = ["WP0"]
[[wp]]
id = "WP2"
title = "e2e tests"
owns = ["t/e2e.sh"]
depends_on = ["WP0"]
`)
	for wp, s := range map[string]struct{ file, snippet string }{"WP0": {"api/contract.md", ""}, "WP1": {"t/unit.sh", wp1Snippet}, "WP2": {"t/e2e.sh", wp2Snippet}} {
		wiring := ""
		if s.snippet != "" {
			snippet, _ := json.Marshal(s.snippet)
			wiring = `{"file":"package.json","snippet":` + string(snippet) + `}`
		}
		script := `{"op":"write","path":"` + s.file + `","content":"true\n"}
{"op":"report","report":{"wp":"` + wp + `","files":["` + s.file + `"],"design_choices":[],"wiring":[` + wiring + `],"exit_codes":[]}}`
		p := filepath.Join(dir, ".plans/demo", wp+"-brief.md")
		b, _ := os.ReadFile(p)
		text := strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)
		text += "\n## Script\n```agentproto-script\n" + script + "\n```\n"
		os.WriteFile(p, []byte(text), 0o644)
	}
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	if out := must(t, dir, "git", "agentproto", "dispatch", "demo"); !strings.Contains(out, "WP2   verify     pass") {
		t.Fatalf("dispatch:\n%s", out)
	}
	for _, wp := range []string{"WP0", "WP1", "WP2"} {
		must(t, dir, "git", "agentproto", "checkpoint", "demo", wp)
	}
	return dir
}

type configResult struct {
	OK       bool   `json:"ok"`
	Head     string `json:"head"`
	Findings []struct {
		Code, WP, File, Message string
	} `json:"findings"`
	Config []struct {
		File, Diff, Status string
		Changes            []struct{ WP, Key, Op string }
	} `json:"config"`
	Collisions []struct {
		File, Key, First, Second, Rename string
	} `json:"collisions"`
	Renames []string `json:"renames"`
}

func consolidateJSON(t *testing.T, dir string, wantExit int, args ...string) configResult {
	t.Helper()
	out, errOut, err := sh(t, dir, nil, "git", append([]string{"agentproto", "consolidate", "demo", "--json"}, args...)...)
	var c configResult
	if jerr := json.Unmarshal([]byte(out), &c); jerr != nil || exitCode(err) != wantExit {
		t.Fatalf("consolidate %v: exit %d (want %d), %v\n%s\n%s", args, exitCode(err), wantExit, jerr, out, errOut)
	}
	return c
}

// scriptsAt reads package.json's scripts as the commit has it.
func scriptsAt(t *testing.T, dir, commit string) map[string]any {
	t.Helper()
	var doc map[string]any
	text := must(t, dir, "git", "show", commit+":package.json")
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("package.json at %s is not JSON: %v\n%s", commit, err, text)
	}
	if doc["name"] != "demo" || doc["version"] != "1.0.0" {
		t.Fatalf("package.json lost its other keys:\n%s", text)
	}
	s, _ := doc["scripts"].(map[string]any)
	return s
}

// Two WPs each adding a script to the shared package.json: consolidate
// merges both keys into one package.json, shows the diff, and commits it.
func TestConsolidateMergesPackageJSONScripts(t *testing.T) {
	dir := configRepo(t, `{"scripts": {"test": "sh t/unit.sh"}}`, `{"scripts": {"test:e2e": "sh t/e2e.sh"}}`)
	out := must(t, dir, "git", "agentproto", "consolidate", "demo")
	for _, want := range []string{"config package.json: 2 keys merged (applied)", "+++ b/package.json", `+    "test": "sh t/unit.sh",`, `+    "test:e2e": "sh t/e2e.sh"`} {
		if !strings.Contains(out, want) {
			t.Fatalf("consolidate output lacks %q:\n%s", want, out)
		}
	}
	head := strings.TrimSpace(must(t, dir, "git", "rev-parse", "wt/demo-integration"))
	provisionedBy(t, dir, "demo-integration", "consolidate")
	s := scriptsAt(t, dir, head)
	if s["build"] != "tsc" || s["test"] != "sh t/unit.sh" || s["test:e2e"] != "sh t/e2e.sh" || len(s) != 3 {
		t.Fatalf("merged scripts = %v", s)
	}
	if msg := must(t, dir, "git", "log", "-1", "--format=%s", head); !strings.Contains(msg, "shared-file wiring") {
		t.Fatalf("the merged package.json is in %q, not the wiring commit", msg)
	}
	// The file keeps its key order and two-space indent.
	text := must(t, dir, "git", "show", head+":package.json")
	if !strings.HasPrefix(text, "{\n  \"name\": \"demo\",\n  \"version\": \"1.0.0\",\n  \"scripts\": {\n    \"build\": \"tsc\",\n") {
		t.Fatalf("formatting not kept:\n%s", text)
	}
	// Run again: every key is present, nothing new to commit.
	c := consolidateJSON(t, dir, 0)
	if len(c.Config) != 1 || c.Config[0].Status != "present" || c.Config[0].Diff != "" || c.Head != head {
		t.Fatalf("second run: %+v", c)
	}
}

// The same script key set by both WPs is a collision naming both and the
// key, with a rename proposed; nothing is written until --rename picks.
func TestConsolidateConfigCollisionThenRename(t *testing.T) {
	dir := configRepo(t, `{"scripts": {"test": "sh t/unit.sh"}}`, `{"scripts": {"test": "sh t/e2e.sh"}}`)
	state := func() string {
		refs := must(t, dir, "git", "for-each-ref", "--format=%(refname) %(objectname)")
		wts := must(t, dir, "git", "worktree", "list", "--porcelain")
		return refs + wts
	}
	before := state()
	integ := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-integration")

	c := consolidateJSON(t, dir, 1)
	if len(c.Collisions) != 1 {
		t.Fatalf("collisions: %+v", c)
	}
	col := c.Collisions[0]
	if col.File != "package.json" || col.Key != "scripts.test" || col.First != "WP1" || col.Second != "WP2" || col.Rename != "WP2:scripts.test=scripts.test:wp2" {
		t.Fatalf("collision: %+v", col)
	}
	if len(c.Findings) != 1 || c.Findings[0].Code != "config-collision" || !strings.Contains(c.Findings[0].Message, "WP1 and WP2 both change scripts.test in package.json") ||
		!strings.Contains(c.Findings[0].Message, "git agentproto consolidate demo --rename WP2:scripts.test=scripts.test:wp2") {
		t.Fatalf("findings: %+v", c.Findings)
	}
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo")
	if exitCode(err) != 1 || !strings.Contains(errOut, "nothing was written") {
		t.Fatalf("plain consolidate: exit %d\n%s", exitCode(err), errOut)
	}
	if state() != before {
		t.Fatalf("a collision wrote something:\nbefore\n%s\nafter\n%s", before, state())
	}
	if _, err := os.Lstat(integ); err == nil {
		t.Fatal("a collision made the integration worktree")
	}

	// A rename that names no WP, a key the WP does not add, or no key
	// path at all: one clear error, exit 2, nothing written.
	for arg, want := range map[string]string{
		"WP9:scripts.test=scripts.x":  "no work package WP9",
		"WP2:scripts.build=scripts.x": "WP2 adds or changes no key scripts.build",
		"WP2:scripts.test":            "not OLD=NEW",
		"scripts.test=x":              "want WPn:OLD=NEW",
		"WP2:scripts..test=x":         "empty key",
	} {
		_, errOut, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo", "--rename", arg)
		if exitCode(err) != 2 || !strings.Contains(errOut, want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("--rename %s: exit %d, want 2 and one line naming %q:\n%s", arg, exitCode(err), want, errOut)
		}
	}
	if state() != before {
		t.Fatal("a refused rename wrote something")
	}

	// The dry run with the rename shows the diff and writes nothing.
	rename := "WP2:scripts.test=scripts.test:e2e"
	c = consolidateJSON(t, dir, 0, "--dry-run", "--rename", rename)
	if len(c.Config) != 1 || c.Config[0].Status != "would-apply" || !strings.Contains(c.Config[0].Diff, `+    "test:e2e": "sh t/e2e.sh"`) {
		t.Fatalf("dry run: %+v", c)
	}
	if state() != before {
		t.Fatal("the dry run wrote something")
	}
	// The MCP server's consolidate takes the same renames.
	cs := mcpConnect(t, dir)
	if m := mustTool(t, cs, "consolidate", map[string]any{"project": "demo", "dry_run": true, "rename": []string{rename}}); !strings.Contains(mustJSON(m.Doc["config"]), `"status":"would-apply"`) {
		t.Fatalf("mcp dry run with the rename: %+v", m.Doc)
	}
	if m := callTool(t, cs, "consolidate", map[string]any{"project": "demo", "rename": []string{"WP9:scripts.test=scripts.x"}}); !m.IsError || m.Doc["exit_code"] != float64(2) || !strings.Contains(m.Text, "no work package WP9") {
		t.Fatalf("mcp consolidate with a bad rename: %+v", m)
	}
	if state() != before {
		t.Fatal("the MCP calls wrote something")
	}

	c = consolidateJSON(t, dir, 0, "--rename", rename)
	if !c.OK || len(c.Config) != 1 || c.Config[0].Status != "applied" || !strings.Contains(c.Config[0].Diff, `+    "test:e2e": "sh t/e2e.sh"`) {
		t.Fatalf("renamed consolidate: %+v", c)
	}
	s := scriptsAt(t, dir, c.Head)
	if s["build"] != "tsc" || s["test"] != "sh t/unit.sh" || s["test:e2e"] != "sh t/e2e.sh" || len(s) != 3 {
		t.Fatalf("merged scripts = %v", s)
	}
	if head := strings.TrimSpace(must(t, dir, "git", "rev-parse", "wt/demo-integration")); head != c.Head {
		t.Fatalf("the integration branch is at %s, consolidate says %s", head, c.Head)
	}
	// The choice stands: consolidate (as run does it) with no --rename
	// keeps it, and changes nothing.
	again := consolidateJSON(t, dir, 0)
	if !again.OK || again.Head != c.Head || len(again.Renames) != 1 || again.Renames[0] != rename || again.Config[0].Status != "present" {
		t.Fatalf("consolidate after the rename: %+v", again)
	}
}

// A snippet that is not JSON stops consolidate with one finding naming the
// WP and the file; nothing is written.
func TestConsolidateMalformedSnippet(t *testing.T) {
	dir := configRepo(t, `{"scripts": {"test": "sh t/unit.sh"}}`, `{"scripts": {"lint": `)
	before := must(t, dir, "git", "for-each-ref", "--format=%(refname) %(objectname)")
	c := consolidateJSON(t, dir, 1)
	if len(c.Findings) != 1 || c.Findings[0].Code != "config-malformed" || c.Findings[0].WP != "WP2" || c.Findings[0].File != "package.json" ||
		!strings.Contains(c.Findings[0].Message, "WP2's wiring for package.json: the snippet is not valid JSON") {
		t.Fatalf("findings: %+v", c.Findings)
	}
	if after := must(t, dir, "git", "for-each-ref", "--format=%(refname) %(objectname)"); after != before {
		t.Fatalf("refs changed:\n%s\n%s", before, after)
	}
}
