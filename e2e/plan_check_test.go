package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Globs for the files a plan's WPs will create match nothing in the base
// tree: plan check says so in one warning at most, and not at all for
// those the SPEC's ## Changes names.
func TestPlanCheckSaysNewFilesOnce(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Definition of done\n"), 0o644)
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-qm", "dod")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "true")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	pd := filepath.Join(dir, ".plans", "demo")
	os.WriteFile(filepath.Join(pd, "plan.toml"), []byte(`name = "demo"
base = "main"
gate = "true"
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/**"]
[[wp]]
id = "WP1"
title = "lib"
owns = ["lib/new.sh", "lib/other.sh", "tests/*_test.sh", "cmd/**"]
depends_on = ["WP0"]
`), 0o644)
	for _, wp := range []string{"WP0", "WP1"} {
		p := filepath.Join(pd, wp+"-brief.md")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)), 0o644)
	}
	spec := func(targets ...string) {
		text := "# SPEC\n## Changes\n"
		for _, t := range targets {
			text += "- `" + t + "`: new.\n"
		}
		os.WriteFile(filepath.Join(pd, "SPEC.md"), []byte(text), 0o644)
	}

	spec("api/contract.go", "lib/new.sh")
	out := must(t, dir, "git", "agentproto", "plan", "check", "demo")
	want := `warning: glob-matches-nothing (WP1 plan.toml): 3 owns globs match no file of the base tree (fine for new files; the SPEC's ## Changes naming them says so): WP1 "lib/other.sh", WP1 "tests/*_test.sh", WP1 "cmd/**"`
	if strings.Count(out, "glob-matches-nothing") != 1 || !strings.Contains(out, want) || !strings.Contains(out, "0 errors, 1 warnings") {
		t.Fatalf("plan check with new files, two named by the SPEC:\n%s", out)
	}

	spec("api/contract.go", "lib/new.sh", "lib/other.sh", "tests/lib_test.sh", "cmd/tool/main.go")
	if out := must(t, dir, "git", "agentproto", "plan", "check", "demo"); strings.Contains(out, "glob-matches-nothing") || !strings.Contains(out, "0 errors, 0 warnings") {
		t.Fatalf("plan check with every new file named by the SPEC:\n%s", out)
	}

	// A new file named second on its item counts as named.
	os.WriteFile(filepath.Join(pd, "SPEC.md"), []byte("# SPEC\n## Changes\n- `api/contract.go`: new.\n"+
		"- `lib/new.sh` and `lib/other.sh`: new, with their test `tests/lib_test.sh`.\n- `cmd/tool/main.go`: new.\n"), 0o644)
	if out := must(t, dir, "git", "agentproto", "plan", "check", "demo"); strings.Contains(out, "glob-matches-nothing") || !strings.Contains(out, "0 errors, 0 warnings") {
		t.Fatalf("plan check with new files named second on their items:\n%s", out)
	}
}
