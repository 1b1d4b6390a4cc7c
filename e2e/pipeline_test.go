package e2e

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// pipelineRepo makes a repository with a frozen three-WP plan whose briefs
// script the scripted executor. wp2Extra is added to WP2's script; when it
// gives a report of its own, WP2's usual report is left out.
func pipelineRepo(t *testing.T, wp2Extra, wp2Wiring string) string {
	t.Helper()
	return pipelineRepoConfig(t, "", wp2Extra, wp2Wiring)
}

// sandboxOff is the configuration of the tests of verify's backstop: the
// agent's writes outside its worktree must happen for verify to find them.
const sandboxOff = "[sandbox]\nmode = \"off\"\n"

// sandboxWorktree is the configuration of the tests of verify's backstop
// inside the worktree: a WP's agent writes its whole worktree, so its
// writes outside its perimeter happen and verify must find them (by
// default the sandbox refuses them at the system call).
const sandboxWorktree = "[sandbox]\nperimeter = \"worktree\"\n"

// pipelineRepoConfig is pipelineRepo with config added to agentproto.toml.
func pipelineRepoConfig(t *testing.T, config, wp2Extra, wp2Wiring string) string {
	t.Helper()
	dir := newRepo(t)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("test.sh", "#!/bin/sh\nfor t in tests/*_test.sh; do [ -e \"$t\" ] || continue; sh \"$t\" || exit 1; done\n")
	write("registry.txt", "# tools\n")
	write("AGENTS.md", "# Definition of done\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\n[e2e]\ncommands = [\"sh test.sh\", \"test -s registry.txt\"]\n"+config)
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "sh test.sh")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP2")
	write(".plans/demo/plan.toml", `name = "demo"
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
`)
	script := map[string]string{
		"WP0": `{"op":"write","path":"api/contract.txt","content":"tools read stdin\n"}
{"op":"report","report":{"wp":"WP0","files":["api/contract.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
		"WP1": `{"op":"write","path":"lib/upper.sh","content":"tr a-z A-Z\n"}
{"op":"write","path":"tests/upper_test.sh","content":"[ \"$(echo ab | sh lib/upper.sh)\" = AB ]\n"}
{"op":"report","report":{"wp":"WP1","files":["lib/upper.sh","tests/upper_test.sh"],"design_choices":[],"wiring":[{"file":"registry.txt","line":"upper lib/upper.sh"}],"claims":["tool:upper"],"exit_codes":[]}}`,
		"WP2": `{"op":"write","path":"lib/lower.sh","content":"tr A-Z a-z\n"}
{"op":"write","path":"tests/lower_test.sh","content":"[ \"$(echo AB | sh lib/lower.sh)\" = ab ]\n"}
` + wp2Extra,
	}
	if !strings.Contains(wp2Extra, `"op":"report"`) {
		script["WP2"] += `
{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],"wiring":[{"file":"registry.txt","line":"` + wp2Wiring + `"}],"claims":["tool:lower"],"exit_codes":[]}}`
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

// sessionOf finds the session a WP was dispatched to.
func sessionOf(t *testing.T, dir, label string) string {
	out := must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")
	var recs []struct{ ID, Label string }
	json.Unmarshal([]byte(out), &recs)
	id := ""
	for _, r := range recs {
		if r.Label == label {
			id = r.ID
		}
	}
	if id == "" {
		t.Fatalf("no session %s in %s", label, out)
	}
	return id
}

// github is a loopback server playing GitHub's pull request API. It checks
// what it receives and answers as GitHub documents.
type github struct {
	t        *testing.T
	mu       sync.Mutex
	requests []string
	existing bool // a PR for the head branch is already open
	fail     []int
}

// sent is the requests received so far, read under the server's lock.
func (g *github) sent() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
}

func (g *github) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	g.requests = append(g.requests, r.Method+" "+r.URL.RequestURI())
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if got := r.Header.Get("Authorization"); got != "token test-token" {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`)
		return
	}
	if len(g.fail) > 0 {
		code := g.fail[0]
		g.fail = g.fail[1:]
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"message":"status %d"}`, code)
		return
	}
	switch {
	case r.Method == "POST" && r.URL.Path == "/api/v3/repos/acme/app/pulls":
		var pr map[string]any
		if err := json.Unmarshal(body, &pr); err != nil {
			g.t.Errorf("POST body is not JSON: %s", body)
		}
		if pr["head"] != "wt/demo-integration" || pr["base"] != "main" || pr["title"] != "agentproto: demo" {
			g.t.Errorf("POST body = %s", body)
		}
		b, _ := pr["body"].(string)
		for _, want := range []string{"| WP2 | lower | pass | 0 |", "[AGENTS.md](https://127.0.0.1", "### Review", "`sh test.sh`: exit 0", "### Spend", "| **plan** |", "`git agentproto web demo`"} {
			if !strings.Contains(b, want) {
				g.t.Errorf("PR body lacks %q:\n%s", want, b)
			}
		}
		if g.existing {
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"A pull request already exists for acme:wt/demo-integration."}]}`)
			return
		}
		g.existing = true
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"number":7,"html_url":"https://github.example/acme/app/pull/7"}`)
	case r.Method == "GET" && r.URL.Path == "/api/v3/repos/acme/app/pulls":
		if r.URL.Query().Get("head") != "acme:wt/demo-integration" || r.URL.Query().Get("state") != "open" {
			g.t.Errorf("GET query = %s", r.URL.RawQuery)
		}
		io.WriteString(w, `[{"number":7,"html_url":"https://github.example/acme/app/pull/7"}]`)
	case r.Method == "PATCH" && r.URL.Path == "/api/v3/repos/acme/app/pulls/7":
		if !strings.Contains(string(body), `"body":"## Plan`) {
			g.t.Errorf("PATCH body = %s", body)
		}
		io.WriteString(w, `{"number":7,"html_url":"https://github.example/acme/app/pull/7"}`)
	default:
		g.t.Errorf("unexpected %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Not Found"}`)
	}
}

func TestPipelineEndToEnd(t *testing.T) {
	// Widened to the worktree: the stray write must happen for verify to find it.
	dir := pipelineRepoConfig(t, sandboxWorktree, `{"op":"write","path":"notes.txt","content":"stray\n"}`, "lower lib/lower.sh")
	remote := filepath.Join(t.TempDir(), "remote.git")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	must(t, dir, "git", "agentproto", "hooks", "install")

	// Dispatch: WP0, then WP1 and WP2; WP2 wrote outside its perimeter.
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") || !strings.Contains(out, "outside the perimeter: notes.txt") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	if !strings.Contains(out, "WP0   verify     pass") || strings.Index(out, "WP0   verify") > strings.Index(out, "WP1   session") {
		t.Fatalf("WP0 must be verified before WP1 starts:\n%s", out)
	}
	var v struct {
		WP         string   `json:"wp"`
		Changed    []string `json:"changed"`
		OutOfScope []string `json:"out_of_scope"`
		Gate       struct {
			Command  string `json:"command"`
			ExitCode int    `json:"exit_code"`
			Log      string `json:"log"`
		} `json:"gate"`
		Verdict string `json:"verdict"`
	}
	out, _, err = sh(t, dir, nil, "git", "agentproto", "verify", "demo", "WP2", "--json")
	json.Unmarshal([]byte(out), &v)
	if exitCode(err) != 1 || v.Verdict != "fail" || strings.Join(v.OutOfScope, ",") != "notes.txt" || v.Gate.Command != "sh test.sh" || v.Gate.ExitCode != 0 || len(v.Changed) != 3 {
		t.Fatalf("verify WP2: %v %+v\n%s", err, v, out)
	}
	// A wt/* branch whose verify is red cannot be pushed.
	_, errOut, err := sh(t, dir, nil, "git", "push", "-q", "origin", "wt/demo-wp2")
	if err == nil || !strings.Contains(errOut, "latest verify is \"fail\"") {
		t.Fatalf("pre-push let a red branch through: %v %s", err, errOut)
	}

	// A second prompt fixes it; run continues from there.
	wp2 := sessionOf(t, dir, "demo/WP2")
	must(t, dir, "git", "agentproto", "sessions", "prompt", wp2, "--text", "```agentproto-script\n{\"op\":\"delete\",\"path\":\"notes.txt\"}\n{\"op\":\"report\",\"report\":{\"wp\":\"WP2\",\"files\":[\"lib/lower.sh\",\"tests/lower_test.sh\"],\"design_choices\":[],\"wiring\":[{\"file\":\"registry.txt\",\"line\":\"lower lib/lower.sh\"}],\"claims\":[\"tool:lower\"],\"exit_codes\":[]}}\n```")
	out = must(t, dir, "git", "agentproto", "dispatch", "demo")
	if !strings.Contains(out, "WP2   verify     pass") || strings.Contains(out, "WP1   session") {
		t.Fatalf("second dispatch must only re-verify WP2:\n%s", out)
	}
	must(t, dir, "git", "push", "-q", "origin", "wt/demo-wp2")

	// Checkpoint commits the verified state and nothing else: a file
	// staged after verify makes it refuse, naming the file.
	wt1 := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp1")
	os.WriteFile(filepath.Join(wt1, "stray.txt"), []byte("not mine\n"), 0o644)
	must(t, wt1, "git", "add", "stray.txt")
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "checkpoint", "demo", "WP1")
	if exitCode(err) != 5 || !strings.Contains(errOut, "changed since it was verified (stray.txt)") {
		t.Fatalf("checkpoint of a changed worktree: %v\n%s%s", err, out, errOut)
	}
	if st := must(t, wt1, "git", "status", "--porcelain"); !strings.Contains(st, "A  stray.txt") {
		t.Fatalf("a refused checkpoint must leave the worktree as it was: %q", st)
	}
	must(t, wt1, "git", "rm", "-q", "--cached", "stray.txt")
	os.Remove(filepath.Join(wt1, "stray.txt"))
	out = must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP1")
	if !strings.Contains(out, "(2 paths)") {
		t.Fatalf("checkpoint: %s", out)
	}
	files := must(t, wt1, "git", "show", "--name-only", "--format=%B", "HEAD")
	if !strings.Contains(files, "lib/upper.sh") || !strings.Contains(files, "agentproto-brief-sha256: ") || !strings.Contains(files, "agentproto-verified-tree: ") {
		t.Fatalf("checkpoint commit:\n%s", files)
	}
	if st := must(t, wt1, "git", "status", "--porcelain"); st != "" {
		t.Fatalf("after the checkpoint the worktree is its HEAD: %q", st)
	}

	// The rest of the pipeline, against a loopback GitHub.
	gh := &github{t: t, fail: []int{502}}
	srv := httptest.NewTLSServer(gh)
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	host := strings.TrimPrefix(srv.URL, "https://")
	cfg, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), append(cfg, []byte("[pr]\nrepo = \"acme/app\"\nhost = \""+host+"\"\n")...), 0o644)
	ghEnv := func(args ...string) (string, string, error) {
		cmd := append([]string{"GH_TOKEN=test-token", "GH_CONFIG_DIR=" + t.TempDir(), "AGENTPROTO_GITHUB_CA=" + ca, "git"}, args...)
		return sh(t, dir, nil, "env", cmd...)
	}
	out, errOut, err = ghEnv("agentproto", "run", "demo", "--pr")
	if err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, out, errOut)
	}
	// run's progress is on stderr.
	for _, want := range []string{"== checkpoint", "wiring WP1 registry.txt: upper lib/upper.sh (applied)", "merged [WP0 WP1 WP2]", "0 findings", "sh test.sh: exit 0", "pull request #7"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("run output lacks %q:\n%s", want, errOut)
		}
	}
	// The integration branch reached the remote; 502 was retried.
	if refs := must(t, dir, "git", "ls-remote", remote); !strings.Contains(refs, "refs/heads/wt/demo-integration") {
		t.Fatalf("integration branch not pushed: %s", refs)
	}
	// Opening again finds the existing PR (422) and updates it.
	out, errOut, err = ghEnv("agentproto", "pr", "open", "demo")
	if err != nil || !strings.Contains(out, "updated pull request #7") {
		t.Fatalf("pr open again: %v %s %s", err, out, errOut)
	}
	want := []string{"POST /api/v3/repos/acme/app/pulls", "POST /api/v3/repos/acme/app/pulls", "POST /api/v3/repos/acme/app/pulls",
		"GET /api/v3/repos/acme/app/pulls?head=acme%3Awt%2Fdemo-integration&state=open", "PATCH /api/v3/repos/acme/app/pulls/7"}
	if got := gh.sent(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s", strings.Join(got, "\n"))
	}
	// A wrong token is refused (exit 5) and never printed.
	_, errOut, err = sh(t, dir, nil, "env", "GH_TOKEN=wrong-token", "GH_CONFIG_DIR="+t.TempDir(), "AGENTPROTO_GITHUB_CA="+ca, "git", "agentproto", "pr", "open", "demo")
	if exitCode(err) != 5 || !strings.Contains(errOut, "401") || strings.Contains(errOut, "wrong-token") {
		t.Fatalf("bad token: %v %s", err, errOut)
	}
	// A push remote that is not configured fails the dry run as it would
	// fail the real one.
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "pr", "open", "demo", "--dry-run")
	if err != nil {
		t.Fatalf("pr open --dry-run: %v %s", err, errOut)
	}
	cfgNow, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), append(cfgNow, []byte("remote = \"upstream\"\n")...), 0o644)
	if _, errOut, err = sh(t, dir, nil, "git", "agentproto", "pr", "open", "demo", "--dry-run"); exitCode(err) != 2 || !strings.Contains(errOut, `the push remote "upstream" is not configured`) {
		t.Fatalf("pr open --dry-run to a missing remote: %v %s", err, errOut)
	}
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), cfgNow, 0o644)
	// A tip moved after consolidate (by hand, or by a reviewer's git
	// update-ref) is not what was reviewed: it is not pushed.
	head := strings.TrimSpace(must(t, dir, "git", "rev-parse", "wt/demo-integration"))
	moved := strings.TrimSpace(must(t, dir, "git", "commit-tree", "-p", head, "-m", "sneaked in", head+"^{tree}"))
	must(t, dir, "git", "update-ref", "refs/heads/wt/demo-integration", moved, head)
	if _, errOut, err = sh(t, dir, nil, "git", "agentproto", "pr", "open", "demo", "--dry-run"); exitCode(err) != 3 || !strings.Contains(errOut, "it moved after consolidate") {
		t.Fatalf("pr open of a moved integration branch: %v %s", err, errOut)
	}
	must(t, dir, "git", "update-ref", "refs/heads/wt/demo-integration", head, moved)
	// A reviewer session reads the review brief; its report is attached.
	out = must(t, dir, "git", "agentproto", "review", "demo", "--adapter", "scripted")
	if !strings.Contains(out, "review of demo: 0 findings") || !strings.Contains(out, "reviewer session s-") {
		t.Fatalf("review --adapter: %s", out)
	}
	rev := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "plan_reviewed", "--limit", "1", "--json")
	if !strings.Contains(rev, `"name":"reviewer-report.txt"`) || !strings.Contains(rev, `"reviewer_session":"s-`) {
		t.Fatalf("review event: %s", rev)
	}
	// Every step is in the ledger.
	log := must(t, dir, "git", "agentproto", "ledger", "log", "--json")
	for _, kind := range []string{"wp_dispatched", "wp_verified", "wp_checkpointed", "plan_consolidated", "plan_reviewed", "plan_e2e", "pr_opened"} {
		if !strings.Contains(log, `"kind":"`+kind+`"`) {
			t.Errorf("no %s event", kind)
		}
	}
}

// Two WPs wiring the same line collide; nothing is half-applied.
func TestConsolidateCollisionChangesNothing(t *testing.T) {
	dir := pipelineRepo(t, "", "upper lib/upper.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo")
	for _, wp := range []string{"WP0", "WP1", "WP2"} {
		must(t, dir, "git", "agentproto", "checkpoint", "demo", wp)
	}
	out, _, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo", "--json")
	if err == nil || !strings.Contains(out, `"code":"wiring-collision"`) {
		t.Fatalf("consolidate: %v\n%s", err, out)
	}
	integ := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-integration")
	base := strings.TrimSpace(must(t, dir, "git", "rev-parse", "main"))
	if head := strings.TrimSpace(must(t, integ, "git", "rev-parse", "HEAD")); head != base {
		t.Fatalf("integration branch moved to %s (base %s)", head, base)
	}
	if st := must(t, integ, "git", "status", "--porcelain"); st != "" {
		t.Fatalf("integration worktree dirty: %s", st)
	}
}

// On a terminal, dispatch redraws a live table (state, turns, last
// activity per WP) instead of printing each change.
func TestDispatchLiveTableOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	out, errOut, err := sh(t, dir, nil, "script", "-qec", "git agentproto dispatch demo --wp WP0", "/dev/null")
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(out, "\x1b[2KWP0   settled   turns=2") || !strings.Contains(out, "WP0   verify     pass") {
		t.Fatalf("no live table:\n%q", out)
	}
}
