package e2e

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// prComments plays GitHub's issue comments API for pull request 7 of
// acme/app, as GitHub documents it: list (paged), create (201), edit.
// Every call must carry the token; every write a JSON body with a body.
type prComments struct {
	t     *testing.T
	mu    sync.Mutex
	calls []string
	ids   []int
	texts []string
}

func (g *prComments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, r.Method+" "+r.URL.Path)
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "token test-token" {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"message":"Bad credentials"}`)
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if r.Method != http.MethodGet {
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
			g.t.Errorf("%s %s: no comment body (%v)", r.Method, r.URL.Path, err)
		}
	}
	comment := func(i int) map[string]any {
		return map[string]any{"id": g.ids[i], "body": g.texts[i], "html_url": fmt.Sprintf("https://github.test/acme/app/pull/7#issuecomment-%d", g.ids[i])}
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/repos/acme/app/issues/7/comments":
		list := []map[string]any{}
		if r.URL.Query().Get("page") == "1" {
			for i := range g.ids {
				list = append(list, comment(i))
			}
		}
		json.NewEncoder(w).Encode(list)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v3/repos/acme/app/issues/7/comments":
		g.ids, g.texts = append(g.ids, 500+len(g.ids)), append(g.texts, in.Body)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(comment(len(g.ids) - 1))
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/app/issues/comments/"):
		for i, id := range g.ids {
			if r.URL.Path == fmt.Sprintf("/api/v3/repos/acme/app/issues/comments/%d", id) {
				g.texts[i] = in.Body
				json.NewEncoder(w).Encode(comment(i))
				return
			}
		}
		fallthrough
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Not Found"}`)
	}
}

// TestActionCommentsVerifyAndReview runs the Action's script the way
// action.yml does, in a shallow clone like actions/checkout's, with the
// variables Actions sets for a pull request, against a loopback GitHub.
func TestActionCommentsVerifyAndReview(t *testing.T) {
	script, err := filepath.Abs("../scripts/action.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	remote := filepath.Join(t.TempDir(), "remote.git")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	// dispatch ends saying which steps it took and what comes next.
	out := must(t, dir, "git", "agentproto", "dispatch", "demo")
	if !strings.Contains(out, "\ndone: WP0 verified and checkpointed, WP1 verified, WP2 verified\nnext: git agentproto run demo (") {
		t.Fatalf("dispatch's closing lines:\n%s", out)
	}
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP1")
	must(t, dir, "git", "push", "-q", "origin", "main", "wt/demo-wp1")
	must(t, dir, "git", "agentproto", "sync", "origin")

	gh := &prComments{t: t}
	srv := httptest.NewTLSServer(gh)
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)

	var errOut string
	ci := filepath.Join(t.TempDir(), "ci")
	must(t, dir, "git", "clone", "-q", "--depth", "1", "file://"+remote, ci)
	state := t.TempDir()
	action := func(headRef string) (string, string, error) {
		os.WriteFile(filepath.Join(state, "output"), nil, 0o644)
		return sh(t, ci, nil, "env",
			"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request", "GITHUB_REF=refs/pull/7/merge",
			"GITHUB_HEAD_REF="+headRef, "GITHUB_BASE_REF=main", "GITHUB_REPOSITORY=acme/app",
			"GITHUB_SERVER_URL="+srv.URL, "GITHUB_API_URL="+srv.URL+"/api/v3",
			"GITHUB_OUTPUT="+filepath.Join(state, "output"), "GITHUB_STEP_SUMMARY="+filepath.Join(state, "summary"),
			"GH_TOKEN=test-token", "GH_CONFIG_DIR="+t.TempDir(), "AGENTPROTO_GITHUB_CA="+ca,
			"INPUT_GATE=sh test.sh", "INPUT_OWN=lib/upper.sh\ntests/*_test.sh\napi/**", "INPUT_MUTATION_BUDGET=0s",
			"INPUT_REMOTE=origin", "INPUT_COMMENT=true", "INPUT_FAIL_ON_FINDINGS=true",
			"sh", script)
	}

	// The checkpointed head is a state its verification saw: pass, and
	// review re-runs the gate on the change. One comment is posted.
	out, errOut, err = action("wt/demo-wp1")
	if err != nil {
		t.Fatalf("action: %v\n%s\n%s\n%s", err, out, errOut, strings.Join(gh.texts, "\n----\n"))
	}
	if len(gh.texts) != 1 {
		t.Fatalf("comments %d, calls %v\n%s", len(gh.texts), gh.calls, errOut)
	}
	body := gh.texts[0]
	// The ledger holds the branch's plan: review judges WP1 as review demo
	// does, with the frozen gate and WP1's brief.
	for _, want := range []string{"<!-- agentproto -->\n### agentproto: `wt/demo-wp1`", "**verify** demo WP1 at `", "`: **pass**",
		"**review** of plan `demo` WP1, `", "**ok**, 0 errors", "gate WP1 `sh test.sh`: exit 0", "gate demo-wp1 head `sh test.sh`: exit 0"} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	if !strings.Contains(out, "commented on pull request #7: https://github.test/acme/app/pull/7#issuecomment-500") {
		t.Errorf("stdout: %s", out)
	}
	if o, _ := os.ReadFile(filepath.Join(state, "output")); string(o) != "verify-exit=0\nreview-exit=0\n" {
		t.Errorf("GITHUB_OUTPUT: %q", o)
	}
	if s, _ := os.ReadFile(filepath.Join(state, "summary")); string(s) != body {
		t.Errorf("step summary differs from the comment:\n%s", s)
	}

	// A commit pushed after verify is no verified state: the same comment
	// is edited to say so, and the job fails.
	wt1 := filepath.Join(homeOf(t), ".agentproto", "worktrees", filepath.Base(dir), "demo-wp1")
	if _, err := os.Stat(wt1); err != nil {
		t.Fatalf("worktree of WP1: %v", err)
	}
	os.WriteFile(filepath.Join(wt1, "lib", "upper.sh"), []byte("tr a-z A-Z # later\n"), 0o644)
	must(t, wt1, "git", "commit", "-q", "-am", "after verify")
	must(t, dir, "git", "push", "-q", "origin", "wt/demo-wp1")
	out, errOut, err = action("wt/demo-wp1")
	if exitCode(err) != 1 {
		t.Fatalf("action on an unverified head: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	if len(gh.texts) != 1 || !strings.Contains(gh.texts[0], "`: **fail**") || !strings.Contains(gh.texts[0], "- not-verified-state: wt/demo-wp1 at ") {
		t.Fatalf("comments after the unverified push (%d):\n%s", len(gh.texts), strings.Join(gh.texts, "\n----\n"))
	}
	if last := gh.calls[len(gh.calls)-1]; last != "PATCH /api/v3/repos/acme/app/issues/comments/500" {
		t.Fatalf("the comment was not edited: %v", gh.calls)
	}
	if o, _ := os.ReadFile(filepath.Join(state, "output")); !strings.Contains(string(o), "verify-exit=1\n") {
		t.Errorf("GITHUB_OUTPUT: %q", o)
	}

	// A branch that is no work package's is left alone: nothing called.
	calls := len(gh.calls)
	must(t, dir, "git", "push", "-q", "origin", "main:feature")
	if out, errOut, err := action("feature"); err != nil || !strings.Contains(errOut, "not a work package's") || len(gh.calls) != calls {
		t.Fatalf("feature branch: %v %s %s %v", err, out, errOut, gh.calls[calls:])
	}
}
