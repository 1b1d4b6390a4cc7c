package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// hands is all a scripted supervisor has: MCP tool calls, counted. It
// holds no directory and no shell, so the script cannot do anything the
// tools do not.
type hands struct {
	t      *testing.T
	cs     *sdk.ClientSession
	calls  []string
	failed []string
	last   map[string]any
}

func (h *hands) call(tool string, args map[string]any) map[string]any {
	h.t.Helper()
	h.calls = append(h.calls, tool)
	c := callTool(h.t, h.cs, tool, args)
	if c.IsError {
		h.failed = append(h.failed, tool+": "+c.Text)
	}
	h.last = c.Doc
	return c.Doc
}

// The scripts the scripted adapter plays for each work package: WP0 the
// contract, WP1 and WP2 a tool each with its test and a wiring line.
var supervisorScripts = map[string]string{
	"WP0": `{"op":"write","path":"api/contract.txt","content":"tools read stdin\n"}
{"op":"report","report":{"wp":"WP0","files":["api/contract.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
	"WP1": `{"op":"write","path":"lib/upper.sh","content":"tr a-z A-Z\n"}
{"op":"write","path":"tests/upper_test.sh","content":"[ \"$(echo ab | sh lib/upper.sh)\" = AB ]\n"}
{"op":"report","report":{"wp":"WP1","files":["lib/upper.sh","tests/upper_test.sh"],"design_choices":[],"wiring":[{"file":"registry.txt","line":"upper lib/upper.sh"}],"claims":["tool:upper"],"exit_codes":[]}}`,
	"WP2": `{"op":"write","path":"lib/lower.sh","content":"tr A-Z a-z\n"}
{"op":"write","path":"tests/lower_test.sh","content":"[ \"$(echo AB | sh lib/lower.sh)\" = ab ]\n"}
{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["tool:lower"],"exit_codes":[]}}`,
}

const supervisorPlan = `name = "demo"
base = "main"
gate = "sh test.sh"
shared = ["registry.txt"]
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/**"]
[[wp]]
id = "WP1"
title = "upper"
owns = ["lib/upper.sh", "tests/upper_test.sh"]
depends_on = ["WP0"]
[[wp]]
id = "WP2"
title = "lower"
owns = ["lib/lower.sh", "tests/lower_test.sh"]
depends_on = ["WP0"]
`

// superviseThreeWPs is a supervisor's whole run of a 3-WP plan, from a
// repository agentproto never touched to the pull request's dry run.
func superviseThreeWPs(h *hands) {
	h.call("init", map[string]any{})
	made := h.call("plan_new", map[string]any{"project": "demo", "gate": "sh test.sh",
		"wps": []map[string]any{{"id": "WP1", "title": "upper"}, {"id": "WP2", "title": "lower"}}})
	templates, _ := made["files"].(map[string]any)
	files := map[string]any{"plan.toml": supervisorPlan}
	for wp, script := range supervisorScripts {
		brief, _ := templates[wp+"-brief.md"].(string)
		brief = strings.Replace(brief, "- (fork): default (choice).", "- input: default stdin.", 1)
		files[wp+"-brief.md"] = brief + "\n## Script\n```agentproto-script\n" + script + "\n```\n"
	}
	h.call("plan_write", map[string]any{"project": "demo", "files": files})
	h.call("plan_freeze", map[string]any{"project": "demo"})
	h.call("dispatch", map[string]any{"project": "demo"})
	for i := 0; i < 4; i++ {
		if st := h.call("dispatch_wait", map[string]any{"project": "demo"}); st["done"] == true || len(h.failed) > 0 {
			break
		}
	}
	// The daemon checkpoints a wave that others depend on; consolidate
	// commits the last one.
	if c := h.call("consolidate", map[string]any{"project": "demo"}); len(h.failed) == 0 && fmt.Sprint(c["checkpointed"]) != "[WP1 WP2]" {
		h.t.Errorf("consolidate checkpointed %v first; want the last wave, WP1 and WP2", c["checkpointed"])
	}
	h.call("review", map[string]any{"project": "demo"})
	h.call("e2e", map[string]any{"project": "demo"})
	pr := h.call("pr_open", map[string]any{"project": "demo", "dry_run": true})
	// Cleanup: the sessions are settled; their worktrees stay for the
	// pull request's life.
	h.call("session_gc", map[string]any{"apply": true})
	h.last = pr
}

// A scripted supervisor runs a 3-WP plan from a repository agentproto
// never touched (the project's code and its committed agentproto.toml)
// to the pull request's dry run through MCP tools alone, in at most 15
// calls and none failing; then the ledger holds every step.
func TestMCPSupervisorRunsAPlanWithoutTheShell(t *testing.T) {
	dir := newRepo(t)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write("test.sh", "#!/bin/sh\nfor t in tests/*_test.sh; do [ -e \"$t\" ] || continue; sh \"$t\" || exit 1; done\n")
	write("registry.txt", "# tools\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\n[e2e]\ncommands = [\"sh test.sh\", \"test -s registry.txt\"]\n[pr]\nrepo = \"acme/app\"\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	remote := filepath.Join(t.TempDir(), "remote.git")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)

	h := &hands{t: t, cs: mcpConnect(t, dir)}
	superviseThreeWPs(h)
	t.Logf("%d calls: %s", len(h.calls), strings.Join(h.calls, ", "))
	if len(h.failed) > 0 {
		t.Fatalf("%d calls failed:\n%s", len(h.failed), strings.Join(h.failed, "\n"))
	}
	if req, _ := h.last["request"].(map[string]any); h.last["dry_run"] != true || !strings.Contains(fmt.Sprint(req["url"]), "acme/app") {
		t.Errorf("the pull request's dry run: %v", h.last)
	}
	if len(h.calls) > 15 {
		t.Errorf("%d calls; the target is 15 at most", len(h.calls))
	}
	log := must(t, dir, "git", "agentproto", "ledger", "log", "--json", "--limit", "1000")
	for _, kind := range []string{"plan_frozen", "wp_dispatched", "wp_verified", "wp_checkpointed", "plan_consolidated", "plan_reviewed", "plan_e2e"} {
		if !strings.Contains(log, `"kind":"`+kind+`"`) {
			t.Errorf("no %s in the ledger", kind)
		}
	}
	if live := must(t, dir, "git", "agentproto", "sessions", "ls", "--json"); strings.TrimSpace(live) != "[]" {
		t.Errorf("sessions left after session_gc: %s", live)
	}
}
