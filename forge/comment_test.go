package forge

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

// issueComments plays GitHub's issue comments API for pull request 7 of
// acme/app: it checks method, path, token and body, and answers as
// GitHub documents (201 with the comment on create, 200 on edit, pages
// of per_page items on list).
type issueComments struct {
	t        *testing.T
	mu       sync.Mutex
	comments []Comment
	fail     []int // statuses answered first, one per call
	calls    []string
}

func (g *issueComments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, r.Method+" "+r.URL.Path)
	if r.Header.Get("Authorization") != "token t0ken" {
		g.t.Errorf("%s %s: auth header %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
	}
	w.Header().Set("Content-Type", "application/json")
	var in struct {
		Body string `json:"body"`
	}
	if r.Method != http.MethodGet {
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &in); err != nil || in.Body == "" {
			g.t.Errorf("%s %s: body %q is no comment", r.Method, r.URL.Path, b)
		}
	}
	if len(g.fail) > 0 {
		w.WriteHeader(g.fail[0])
		fmt.Fprintf(w, `{"message":"try later"}`)
		g.fail = g.fail[1:]
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/repos/acme/app/issues/7/comments":
		var page, per int
		fmt.Sscan(r.URL.Query().Get("page"), &page)
		fmt.Sscan(r.URL.Query().Get("per_page"), &per)
		if page < 1 || per < 1 {
			g.t.Errorf("list without page/per_page: %s", r.URL)
			page, per = 1, 30
		}
		lo, hi := min((page-1)*per, len(g.comments)), min(page*per, len(g.comments))
		json.NewEncoder(w).Encode(g.comments[lo:hi])
	case r.Method == http.MethodPost && r.URL.Path == "/api/v3/repos/acme/app/issues/7/comments":
		c := Comment{ID: int64(1000 + len(g.comments)), Body: in.Body}
		c.URL = fmt.Sprintf("https://github.example/acme/app/pull/7#issuecomment-%d", c.ID)
		g.comments = append(g.comments, c)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(c)
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/app/issues/comments/"):
		for i := range g.comments {
			if r.URL.Path == fmt.Sprintf("/api/v3/repos/acme/app/issues/comments/%d", g.comments[i].ID) {
				g.comments[i].Body = in.Body
				json.NewEncoder(w).Encode(g.comments[i])
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Not Found"}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Not Found"}`)
	}
}

func TestCommentPostsThenEditsItsOwn(t *testing.T) {
	gh := &issueComments{t: t}
	// 150 comments of others: ours is looked for on every page.
	for i := range 150 {
		gh.comments = append(gh.comments, Comment{ID: int64(i + 1), Body: "looks good"})
	}
	c := client(t, gh.ServeHTTP)
	first, err := c.Comment(7, "<!-- agentproto -->", "2 findings")
	if err != nil || first.Updated || first.ID != 1150 {
		t.Fatalf("first comment: %+v, %v", first, err)
	}
	again, err := c.Comment(7, "<!-- agentproto -->", "0 findings")
	if err != nil || !again.Updated || again.ID != first.ID {
		t.Fatalf("second comment: %+v, %v", again, err)
	}
	if len(gh.comments) != 151 || gh.comments[150].Body != "<!-- agentproto -->\n0 findings" {
		t.Fatalf("comments: %d, last %q", len(gh.comments), gh.comments[len(gh.comments)-1].Body)
	}
	want := "GET /api/v3/repos/acme/app/issues/7/comments\nGET /api/v3/repos/acme/app/issues/7/comments\nPOST /api/v3/repos/acme/app/issues/7/comments\n" +
		"GET /api/v3/repos/acme/app/issues/7/comments\nGET /api/v3/repos/acme/app/issues/7/comments\nPATCH /api/v3/repos/acme/app/issues/comments/1150"
	if got := strings.Join(gh.calls, "\n"); got != want {
		t.Fatalf("calls:\n%s", got)
	}
}

// A 429 or 5xx answer is tried again with the same body; the last answer
// reaches the caller as GitHub gave it.
func TestCommentRetries(t *testing.T) {
	gh := &issueComments{t: t, fail: []int{http.StatusTooManyRequests, http.StatusBadGateway}}
	c := client(t, gh.ServeHTTP)
	if _, err := c.Comment(7, "<!-- m -->", "x"); err != nil {
		t.Fatalf("after a 429 and a 502: %v", err)
	}
	gh = &issueComments{t: t, fail: []int{http.StatusForbidden}}
	c = client(t, gh.ServeHTTP)
	_, err := c.Comment(7, "<!-- m -->", "x")
	if fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), "pull-requests: write") || len(gh.calls) != 1 {
		t.Fatalf("403: %d calls, %v", len(gh.calls), err)
	}
	if _, err := c.Comment(0, "<!-- m -->", "x"); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("number 0: %v", err)
	}
}
