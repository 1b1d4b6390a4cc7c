package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// budgetRepo is a Go project with no tests whose one WP adds a function:
// the mutation smoke has something to judge without building anything.
// [review] mutation_budget is "0s" (off).
func budgetRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module calc\n\ngo 1.22\n")
	write("calc.go", "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
	write("AGENTS.md", "# Definition of done\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\n[review]\nmutation_budget = \"0s\"\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "true")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	write(".plans/demo/plan.toml", `name = "demo"
base = "main"
gate = "true"
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/**"]
[[wp]]
id = "WP1"
title = "double"
owns = ["calc.go"]
depends_on = ["WP0"]
`)
	calc, _ := json.Marshal("package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\n// Double doubles.\nfunc Double(n int) int { return 2 * n }\n")
	scripts := map[string]string{
		"WP0": `{"op":"write","path":"api/contract.txt","content":"Double doubles\n"}
{"op":"report","report":{"wp":"WP0","files":["api/contract.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
		"WP1": `{"op":"write","path":"calc.go","content":` + string(calc) + `}
{"op":"report","report":{"wp":"WP1","files":["calc.go"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
	}
	for wp, s := range scripts {
		name := ".plans/demo/" + wp + "-brief.md"
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)
		write(name, text+"\n## Script\n```agentproto-script\n"+s+"\n```\n")
	}
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	must(t, dir, "git", "agentproto", "dispatch", "demo")
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP1")
	return dir
}

// budgetRan says whether a plan review's mutation smoke ran: with a
// budget of 1ns it runs out before the first function is judged, and
// says so.
func budgetRan(t *testing.T, dir string, args ...string) bool {
	t.Helper()
	out, errOut, err := sh(t, dir, nil, "git", append([]string{"agentproto", "review", "demo", "--json"}, args...)...)
	if code := exitCode(err); code != 0 && code != 1 {
		t.Fatalf("review: %v\n%s\n%s", err, out, errOut)
	}
	var r struct {
		Findings []struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("review JSON: %v\n%s", err, out)
	}
	for _, f := range r.Findings {
		if f.Code == "mutation-budget" && strings.Contains(f.Message, "Double") {
			return true
		}
	}
	return false
}

// review PROJECT takes --mutation-budget as review --base does: the flag
// wins over [review] mutation_budget, and without it the config holds.
func TestReviewPlanMutationBudgetFlag(t *testing.T) {
	dir := budgetRepo(t)
	if budgetRan(t, dir) {
		t.Fatal("the mutation smoke ran with [review] mutation_budget = \"0s\"")
	}
	if !budgetRan(t, dir, "--mutation-budget", "1ns") {
		out, _, _ := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--mutation-budget", "1ns")
		t.Fatalf("review PROJECT ignored --mutation-budget: the config's 0s won\n%s", out)
	}
}
