package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// A name a WP claims is declared once and registered once: review names
// the claim no manifest declares and the name two registry lines declare,
// and passes the one declared once.
func TestReviewDeclaredOnce(t *testing.T) {
	report := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],` +
		`"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"},{"file":"registry.txt","line":"upper lib/lower.sh"}],` +
		`"claims":["command:lower","command:upper","command:shout","tool:lower"],"exit_codes":[]}}`
	dir := pipelineRepo(t, report, "")
	// WP1 wires "upper lib/upper.sh": with WP2's second line, upper is
	// declared twice.
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo")
	if exitCode(err) != 1 || !strings.Contains(out+errOut, "merged [WP0 WP1 WP2]") {
		t.Fatalf("run: %v\n%s\n%s", err, out, errOut)
	}
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "review", "demo", "--json")
	if exitCode(err) != 1 {
		t.Fatalf("review: %v\n%s\n%s", err, out, errOut)
	}
	var r struct {
		Findings []struct{ Code, WP, Message string }
		OK       bool
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("review JSON: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, f := range r.Findings {
		if strings.Contains(f.Message, "WP2 claims command:") {
			got[f.Code] += f.Message + ";"
		}
	}
	if !strings.Contains(got["declared-twice"], "command:upper") || !strings.Contains(got["declared-twice"], "registry.txt:2") ||
		!strings.Contains(got["claim-orphan"], "command:shout") || strings.Contains(out, "command:lower") || len(got) != 2 || r.OK {
		t.Fatalf("findings %v\n%s", got, out)
	}
}
