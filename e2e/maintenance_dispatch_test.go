package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The ledger's maintenance runs again and again while a plan dispatches
// (auto_maintenance = 5 loose objects): it never counts as a work package
// writing outside its worktree, and every work package verifies.
func TestAutoMaintenanceDuringDispatchGivesNoFinding(t *testing.T) {
	scripts := map[string]string{}
	wps := ""
	for i, own := range []string{"a", "b", "c"} {
		wp := "WP" + string(rune('0'+i))
		scripts[wp] = writeStep(own+"/x.txt", "x\n") + "\n" +
			`{"op":"report","report":{"wp":"` + wp + `","files":["` + own + `/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
		wps += "[[wp]]\nid = \"" + wp + "\"\ntitle = \"" + own + "\"\nowns = [\"" + own + "/**\"]\n"
		if wp != "WP0" {
			wps += "depends_on = [\"WP0\"]\n"
		}
	}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n[ledger]\nauto_maintenance = 5\n"}, wps, scripts)
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil {
		t.Fatalf("dispatch: %v\n%s\n%s", err, out, errOut)
	}
	for _, wp := range []string{"WP0", "WP1", "WP2"} {
		if !strings.Contains(out, wp+"   verify     pass") {
			t.Fatalf("%s did not pass verify:\n%s\n%s", wp, out, errOut)
		}
	}
	if strings.Contains(out+errOut, "outside") {
		t.Fatalf("a finding outside the worktree:\n%s\n%s", out, errOut)
	}
	// The maintenance did run (no loose ledger objects pile up), and it
	// never wrote git's server info.
	deadline := time.Now().Add(20 * time.Second)
	for packs(t, dir) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if packs(t, dir) == 0 {
		t.Fatal("no pack after the dispatch: maintenance never ran")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "info", "refs")); err == nil {
		t.Fatal("maintenance wrote .git/info/refs")
	}
	// The background gc may still be writing once the pack is there; the
	// test's directory is removed only after it ended.
	waitNoProcessIn(t, dir, 30*time.Second)
}

// waitNoProcessIn waits until no process works in dir (its working
// directory under it), as a detached maintenance does.
func waitNoProcessIn(t *testing.T, dir string, bound time.Duration) {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(bound)
	for {
		busy := ""
		cwds, _ := filepath.Glob("/proc/[0-9]*/cwd")
		for _, c := range cwds {
			if d, err := os.Readlink(c); err == nil && (d == real || strings.HasPrefix(d, real+"/")) {
				busy = c
				break
			}
		}
		if busy == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a process still works in the repository after %s: %s", bound, busy)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func packs(t *testing.T, dir string) int {
	got, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	return len(got)
}
