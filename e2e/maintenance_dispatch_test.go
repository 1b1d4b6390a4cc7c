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
}

func packs(t *testing.T, dir string) int {
	got, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	return len(got)
}
