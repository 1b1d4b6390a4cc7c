package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// prGitHub is a loopback server playing the parts of GitHub's REST API a
// pull request's life touches, as documented: opening it, reading it (its
// head follows the branch of a bare repository standing for GitHub's copy),
// the check runs of a commit and their annotations, combined commit
// statuses, reviews, review comments and replies. GETs carry ETags and
// answer 304 to a matching If-None-Match, as GitHub does for polling.
// Every request is checked — token, media type, method, path, page size,
// body — and anything else (a merge, above all) fails the test.
type prGitHub struct {
	t      *testing.T
	remote string // the bare repository the PR's head branch lives in
	branch string

	mu       sync.Mutex
	opened   bool
	closed   bool
	checks   map[string][]ghCheck // by head commit
	reviews  []map[string]any
	comments []map[string]any
	replies  []ghReply
	requests []string
	// counted are the answers that count against the rate limit; free
	// the 304s, which do not.
	counted, free int
	nextID        int64
	// after runs a change once the server has had that many requests,
	// under its lock: a change in the middle of a run of polls.
	after map[int]func()
}

type ghCheck struct {
	ID          int64
	Name        string
	Conclusion  string
	Text        string
	Annotations []map[string]any
}

type ghReply struct {
	To   int64
	Body string
}

const ghPrefix = "/api/v3/repos/acme/app/"

var (
	ghCommitPath = regexp.MustCompile(`^commits/([0-9a-f]{40})/(check-runs|status)$`)
	ghAnnotPath  = regexp.MustCompile(`^check-runs/(\d+)/annotations$`)
	ghReplyPath  = regexp.MustCompile(`^pulls/7/comments/(\d+)/replies$`)
	hexCommit    = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
)

func newPRGitHub(t *testing.T, remote string) *prGitHub {
	return &prGitHub{t: t, remote: remote, branch: "wt/demo-integration", checks: map[string][]ghCheck{}, nextID: 9000}
}

// head is the commit the PR's branch is at on "GitHub".
func (g *prGitHub) head() string {
	out, err := exec.Command("git", "--git-dir", g.remote, "rev-parse", "refs/heads/"+g.branch).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// setCheck completes check run name on commit sha.
func (g *prGitHub) setCheck(sha string, c ghCheck) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextID++
	c.ID = g.nextID
	g.checks[sha] = append(g.checks[sha], c)
}

func (g *prGitHub) addReview(id int64, user, state, commit string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reviews = append(g.reviews, ghReview(id, user, state, commit))
}

func ghReview(id int64, user, state, commit string) map[string]any {
	return map[string]any{"id": id, "user": map[string]any{"login": user}, "body": "", "state": state,
		"commit_id": commit, "submitted_at": "2026-01-02T03:04:05Z"}
}

// at makes change once n more requests have come, before the nth is
// answered; change runs under the server's lock.
func (g *prGitHub) at(n int, change func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.after == nil {
		g.after = map[int]func(){}
	}
	g.after[len(g.requests)+n] = change
}

func (g *prGitHub) addComment(id, review int64, user, path string, line int, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.comments = append(g.comments, map[string]any{"id": id, "pull_request_review_id": review, "user": map[string]any{"login": user},
		"path": path, "line": line, "body": body, "commit_id": g.head(), "html_url": fmt.Sprintf("https://github.example/acme/app/pull/7#discussion_r%d", id)})
}

// close closes the pull request without merging it, as a person would.
func (g *prGitHub) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
}

// costs returns the answers that counted against the rate limit and the
// 304s since the last call.
func (g *prGitHub) costs() (counted, free int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	counted, free = g.counted, g.free
	g.counted, g.free = 0, 0
	return counted, free
}

func (g *prGitHub) fail(w http.ResponseWriter, r *http.Request, why string) {
	g.t.Errorf("GitHub got %s %s: %s", r.Method, r.URL.RequestURI(), why)
	w.WriteHeader(http.StatusNotFound)
	io.WriteString(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
}

// sent is the requests received so far, read under the server's lock.
func (g *prGitHub) sent() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
}

func (g *prGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	g.requests = append(g.requests, r.Method+" "+r.URL.RequestURI())
	if change := g.after[len(g.requests)]; change != nil {
		change()
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if r.Header.Get("Authorization") != "token test-token" {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"message":"Bad credentials"}`)
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/vnd.github") {
		g.fail(w, r, "no GitHub media type in Accept: "+r.Header.Get("Accept"))
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, ghPrefix)
	if !ok {
		g.fail(w, r, "not under "+ghPrefix)
		return
	}
	if r.Method != http.MethodGet {
		g.counted++
		g.write(w, r, path, body)
		return
	}
	if lists := path != "pulls/7"; lists && r.URL.Query().Get("per_page") != "100" {
		g.fail(w, r, "a list read without per_page=100")
		return
	}
	doc, ok := g.read(path)
	if !ok {
		g.fail(w, r, "no such GET")
		return
	}
	b, _ := json.Marshal(doc)
	sum := sha256.Sum256(b)
	etag := `W/"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		g.free++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	g.counted++
	w.Write(b)
}

// read answers a GET with the document GitHub would send.
func (g *prGitHub) read(path string) (any, bool) {
	switch {
	case path == "pulls/7":
		state := "open"
		if g.closed {
			state = "closed"
		}
		return map[string]any{"number": 7, "state": state, "merged": false, "html_url": "https://github.example/acme/app/pull/7",
			"head": map[string]any{"ref": g.branch, "sha": g.head()}, "base": map[string]any{"ref": "main"}}, true
	case path == "pulls/7/reviews":
		return append([]map[string]any{}, g.reviews...), true
	case path == "pulls/7/comments":
		return append([]map[string]any{}, g.comments...), true
	}
	if m := ghCommitPath.FindStringSubmatch(path); m != nil && m[2] == "check-runs" {
		runs := []map[string]any{}
		for _, c := range g.checks[m[1]] {
			runs = append(runs, map[string]any{"id": c.ID, "name": c.Name, "head_sha": m[1], "status": "completed", "conclusion": c.Conclusion,
				"html_url": fmt.Sprintf("https://github.example/acme/app/runs/%d", c.ID),
				"output":   map[string]any{"title": c.Name, "summary": c.Conclusion, "text": c.Text, "annotations_count": len(c.Annotations)}})
		}
		return map[string]any{"total_count": len(runs), "check_runs": runs}, true
	} else if m != nil {
		// The older statuses API: one legacy context, always green.
		return map[string]any{"state": "success", "sha": m[1], "total_count": 1,
			"statuses": []map[string]any{{"id": 1, "context": "legacy", "state": "success", "description": "ok"}}}, true
	}
	if m := ghAnnotPath.FindStringSubmatch(path); m != nil {
		for _, cs := range g.checks {
			for _, c := range cs {
				if fmt.Sprint(c.ID) == m[1] {
					return c.Annotations, true
				}
			}
		}
	}
	return nil, false
}

// write answers a POST: opening the pull request, or a reply in a review
// thread, which must carry agentproto's marker and the commit it names.
func (g *prGitHub) write(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	var in map[string]any
	if err := json.Unmarshal(body, &in); err != nil || r.Method != http.MethodPost {
		g.fail(w, r, "not a POST of JSON: "+string(body))
		return
	}
	switch m := ghReplyPath.FindStringSubmatch(path); {
	case path == "pulls" && !g.opened:
		if in["head"] != g.branch || in["base"] != "main" {
			g.fail(w, r, "pull request body "+string(body))
			return
		}
		g.opened = true
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"number":7,"html_url":"https://github.example/acme/app/pull/7"}`)
	case m != nil:
		text, _ := in["body"].(string)
		if !strings.HasPrefix(text, "<!-- agentproto -->") || !hexCommit.MatchString(text) {
			g.fail(w, r, "a reply without the marker and a commit: "+text)
			return
		}
		var to int64
		fmt.Sscan(m[1], &to)
		g.replies = append(g.replies, ghReply{To: to, Body: text})
		g.nextID++
		reply := map[string]any{"id": g.nextID, "in_reply_to_id": to, "user": map[string]any{"login": "agentproto-bot"}, "body": text, "path": "", "line": 0}
		g.comments = append(g.comments, reply)
		w.WriteHeader(http.StatusCreated)
		b, _ := json.Marshal(reply)
		w.Write(b)
	default:
		g.fail(w, r, "unexpected write "+string(body))
	}
}
