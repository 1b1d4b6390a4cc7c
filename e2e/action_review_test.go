package e2e

import (
	"encoding/json"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// ciAction runs the Action's script (scripts/action.sh) as action.yml
// does, in a clone like actions/checkout's, against a loopback GitHub.
type ciAction struct {
	t      *testing.T
	script string
	srv    *httptest.Server
	gh     *prComments
	ca     string
	state  string
}

func newCIAction(t *testing.T) *ciAction {
	script, err := filepath.Abs("../scripts/action.sh")
	if err != nil {
		t.Fatal(err)
	}
	gh := &prComments{t: t}
	srv := httptest.NewTLSServer(gh)
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	return &ciAction{t: t, script: script, srv: srv, gh: gh, ca: ca, state: t.TempDir()}
}

// run runs the script in ci for a pull request from headRef into main,
// with the inputs given as INPUT_*=value on top of the defaults.
func (a *ciAction) run(ci, headRef string, inputs ...string) (string, string, error) {
	os.WriteFile(filepath.Join(a.state, "output"), nil, 0o644)
	os.WriteFile(filepath.Join(a.state, "summary"), nil, 0o644)
	args := []string{"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request", "GITHUB_REF=refs/pull/7/merge",
		"GITHUB_HEAD_REF=" + headRef, "GITHUB_BASE_REF=main", "GITHUB_REPOSITORY=acme/app",
		"GITHUB_SERVER_URL=" + a.srv.URL, "GITHUB_API_URL=" + a.srv.URL + "/api/v3",
		"GITHUB_OUTPUT=" + filepath.Join(a.state, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(a.state, "summary"),
		"GH_TOKEN=test-token", "GH_CONFIG_DIR=" + a.t.TempDir(), "AGENTPROTO_GITHUB_CA=" + a.ca,
		"INPUT_REMOTE=origin", "INPUT_COMMENT=true", "INPUT_FAIL_ON_FINDINGS=true", "INPUT_MUTATION_BUDGET=0s"}
	args = append(append([]string{"env"}, args...), inputs...)
	args = append(args, "sh", a.script)
	return sh(a.t, ci, nil, args[0], args[1:]...)
}

func (a *ciAction) summary() string {
	b, _ := os.ReadFile(filepath.Join(a.state, "summary"))
	return string(b)
}

// reviewFindings is what two reviews must agree on: each finding, as a
// sorted list of lines.
func reviewFindings(t *testing.T, doc string) (lines []string, ok bool) {
	var r struct {
		Findings []struct {
			Code, WP, File, Message, Severity string
			Line                              int
		}
		OK bool
	}
	if err := json.Unmarshal([]byte(doc), &r); err != nil {
		t.Fatalf("review JSON: %v\n%s", err, doc)
	}
	for _, f := range r.Findings {
		lines = append(lines, strings.Join([]string{f.Severity, f.Code, f.WP, f.File, f.Message}, " | "))
	}
	sort.Strings(lines)
	return lines, r.OK
}

// One commit, one verdict: the plan whose review fails with 2 errors (a
// claim no manifest declares, a name declared twice) fails with the same 2
// in CI, where the Action reviews the pull request of its integration
// branch from the ledger and the pushed branches — not 0, as when it
// judged the change alone. Without the ledger, the Action says it judged
// the change alone and what that cannot see.
func TestActionReviewAgreesWithReviewProject(t *testing.T) {
	report := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],` +
		`"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"},{"file":"registry.txt","line":"upper lib/lower.sh"}],` +
		`"claims":["command:lower","command:upper","command:shout","tool:lower"],"exit_codes":[]}}`
	dir := pipelineRepo(t, report, "")
	if _, _, err := sh(t, dir, nil, "git", "agentproto", "run", "demo"); exitCode(err) != 1 {
		t.Fatalf("run: %v", err)
	}
	local, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--json", "--mutation-budget", "0s")
	if exitCode(err) != 1 {
		t.Fatalf("review demo: %v\n%s", err, errOut)
	}
	want, _ := reviewFindings(t, local)
	if len(want) != 2 {
		t.Fatalf("review demo found %d, not the 2 of this plan:\n%s", len(want), strings.Join(want, "\n"))
	}

	// The supervisor pushes the branches and the ledger; pr open pushes the
	// integration branch the pull request is from.
	remote := filepath.Join(t.TempDir(), "remote.git")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	must(t, dir, "git", "push", "-q", "origin", "main", "wt/demo-wp0", "wt/demo-wp1", "wt/demo-wp2", "wt/demo-integration")
	must(t, dir, "git", "agentproto", "sync", "origin")
	ci := filepath.Join(t.TempDir(), "ci")
	must(t, dir, "git", "clone", "-q", "--depth", "1", "file://"+remote, ci)

	a := newCIAction(t)
	out, errOut, err := a.run(ci, "wt/demo-integration", "INPUT_GATE=sh test.sh")
	if exitCode(err) != 1 {
		t.Fatalf("action: %v\n%s\n%s", err, out, errOut)
	}
	sum := a.summary()
	for _, w := range []string{"**verify** demo integration at `", "`: **pass**", "**review** of plan `demo`, `", "**failed**, 2 errors",
		"claim-orphan` WP2", "declared-twice` WP2"} {
		if !strings.Contains(sum, w) {
			t.Errorf("the Action's comment lacks %q:\n%s", w, sum)
		}
	}
	if o, _ := os.ReadFile(filepath.Join(a.state, "output")); string(o) != "verify-exit=0\nreview-exit=1\n" {
		t.Errorf("GITHUB_OUTPUT: %q", o)
	}
	// The command the Action runs, on the same commit, finds what review
	// demo found, finding for finding.
	doc, errOut, err := sh(t, ci, nil, "git", "agentproto", "review", "--branch", "wt/demo-integration", "--head", "origin/wt/demo-integration",
		"--mutation-budget", "0s", "--json")
	got, ok := reviewFindings(t, doc)
	if exitCode(err) != 1 || ok || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("review --branch in CI (exit %d) found:\n%s\nreview demo found:\n%s\n%s", exitCode(err), strings.Join(got, "\n"), strings.Join(want, "\n"), errOut)
	}

	// The integration branch is held against its consolidation: another
	// commit is no consolidated state.
	mainCommit := strings.TrimSpace(must(t, dir, "git", "rev-parse", "main"))
	out, errOut, err = sh(t, ci, nil, "git", "agentproto", "verify", "--branch", "wt/demo-integration", "--commit", mainCommit)
	if exitCode(err) != 1 || !strings.Contains(out, "not-consolidated-state: wt/demo-integration at ") {
		t.Fatalf("verify --branch of the integration at another commit: exit %d\n%s%s", exitCode(err), out, errOut)
	}

	// A remote without the ledger: the Action judges the change alone and
	// says so, with what it cannot see.
	bare := filepath.Join(t.TempDir(), "bare.git")
	must(t, dir, "git", "init", "-q", "--bare", bare)
	must(t, dir, "git", "push", "-q", bare, "main", "wt/demo-integration")
	alone := filepath.Join(t.TempDir(), "alone")
	must(t, dir, "git", "clone", "-q", "--depth", "1", "file://"+bare, alone)
	out, errOut, err = a.run(alone, "wt/demo-integration", "INPUT_GATE=sh test.sh", "INPUT_FAIL_ON_FINDINGS=false")
	if err != nil {
		t.Fatalf("action without the ledger: %v\n%s\n%s", err, out, errOut)
	}
	sum = a.summary()
	for _, w := range []string{"**review** of the change alone, `", "judged the change alone: the ledger (refs/agentproto/*) is not in this repository",
		"It cannot see what review PROJECT sees in the ledger:", "- the work packages' report claims"} {
		if !strings.Contains(sum, w) {
			t.Errorf("the Action's comment without the ledger lacks %q:\n%s", w, sum)
		}
	}
}
