package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scaleWPs is the size of the plan reviewed: past about twenty WPs, one
// gate_timeout over all the gates ended the later ones (137).
const scaleWPs = 40

// scaleRepo makes a plan of n WPs, WP0 to WPn-1, each owning a script and its test, each
// with its worktree and a commit of its work there; the gate runs every
// test after a pause, so that n gates together take longer than the
// gate_timeout each is given.
func scaleRepo(t *testing.T, n int, gateTimeout string) string {
	t.Helper()
	dir := newRepo(t)
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("test.sh", "#!/bin/sh\nsleep 0.15\nfor t in tests/*_test.sh; do [ -e \"$t\" ] || continue; sh \"$t\" || exit 1; done\necho heard\n")
	write("AGENTS.md", "# Definition of done\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\ngate_timeout = \""+gateTimeout+"\"\n[review]\nmutation_budget = \"0s\"\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "sh test.sh")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	brief, err := os.ReadFile(filepath.Join(dir, ".plans/demo/WP1-brief.md"))
	if err != nil {
		t.Fatal(err)
	}
	plan := "name = \"demo\"\nbase = \"main\"\ngate = \"sh test.sh\"\n"
	for i := 0; i < n; i++ {
		wp := fmt.Sprintf("WP%d", i)
		plan += fmt.Sprintf("[[wp]]\nid = %q\ntitle = \"tool %d\"\nowns = [\"lib/w%d.sh\", \"tests/w%d_test.sh\"]\n", wp, i, i, i)
		if i > 0 {
			plan += "depends_on = [\"WP0\"]\n"
		}
		write(".plans/demo/"+wp+"-brief.md", strings.ReplaceAll(string(brief), "WP1", wp))
	}
	write(".plans/demo/plan.toml", plan)
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	for i := 0; i < n; i++ {
		out := must(t, dir, "git", "agentproto", "worktree", "new", fmt.Sprintf("demo-wp%d", i), "--base", "main", "--no-setup", "--json")
		var m struct{ Path string }
		if err := json.Unmarshal([]byte(out), &m); err != nil || m.Path == "" {
			t.Fatalf("worktree new: %v\n%s", err, out)
		}
		os.MkdirAll(filepath.Join(m.Path, "lib"), 0o755)
		os.MkdirAll(filepath.Join(m.Path, "tests"), 0o755)
		os.WriteFile(filepath.Join(m.Path, "lib", fmt.Sprintf("w%d.sh", i)), []byte(fmt.Sprintf("echo %d\n", i)), 0o644)
		os.WriteFile(filepath.Join(m.Path, "tests", fmt.Sprintf("w%d_test.sh", i)), []byte(fmt.Sprintf("[ \"$(sh lib/w%d.sh)\" = %d ]\n", i, i)), 0o644)
		must(t, m.Path, "git", "add", "-A")
		must(t, m.Path, "git", "commit", "-q", "-m", fmt.Sprintf("tool %d", i))
	}
	return dir
}

// A plan of 40 WPs is reviewed with every gate heard: each WP's gate, and
// each side of each change's review, has gate_timeout to itself. The 40
// WP gates alone take longer than that bound, so one bound over them all
// would end the later ones; none is ended, none fails.
func TestReviewOfFortyWPsHearsEveryGate(t *testing.T) {
	if testing.Short() {
		t.Skip("a 40-WP plan: worktrees, and some 120 gate runs")
	}
	const bound = 5 * time.Second
	dir := scaleRepo(t, scaleWPs, bound.String())
	start := time.Now()
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--json")
	took := time.Since(start)
	var r struct {
		Gates []struct {
			Where string
			Gate  struct {
				ExitCode int  `json:"exit_code"`
				TimedOut bool `json:"timed_out"`
				Duration string
			}
		}
		Findings []struct{ Code, WP, Message string }
	}
	if jerr := json.Unmarshal([]byte(out), &r); jerr != nil {
		t.Fatalf("review: %v %v\n%s\n%s", err, jerr, out, errOut)
	}
	heard := map[string]bool{}
	var total time.Duration
	for _, g := range r.Gates {
		if g.Gate.ExitCode != 0 || g.Gate.TimedOut {
			t.Errorf("gate at %s: exit %d, timed out %v (%s)", g.Where, g.Gate.ExitCode, g.Gate.TimedOut, g.Gate.Duration)
		}
		heard[g.Where] = true
		d, _ := time.ParseDuration(g.Gate.Duration)
		total += d
	}
	for i := 0; i < scaleWPs; i++ {
		wp := fmt.Sprintf("WP%d", i)
		if !heard[wp] {
			t.Errorf("%s's gate was not heard", wp)
		}
	}
	for _, f := range r.Findings {
		if f.Code == "gate-failed" || f.Code == "gate-timeout" {
			t.Errorf("finding %s on %s: %s", f.Code, f.WP, f.Message)
		}
	}
	if total <= bound {
		t.Fatalf("the gates took %s together, within one gate_timeout (%s): the test shows nothing", total, bound)
	}
	t.Logf("%d gate runs, %s together, review %s (exit %v)", len(r.Gates), total, took, err)
}
