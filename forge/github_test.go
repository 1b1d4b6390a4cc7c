package forge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

func TestParseRemote(t *testing.T) {
	cases := map[string]Repo{
		"https://github.com/acme/app.git":          {"github.com", "acme", "app"},
		"https://github.com/acme/app":              {"github.com", "acme", "app"},
		"git@github.com:acme/app.git":              {"github.com", "acme", "app"},
		"ssh://git@ghe.example.com:2222/acme/app":  {"ghe.example.com", "acme", "app"},
		"https://user@ghe.example.com/acme/my.app": {"ghe.example.com", "acme", "my.app"},
		"git@github.com:acme/app":                  {"github.com", "acme", "app"},
		"ssh://git@github.com/acme/app.git":        {"github.com", "acme", "app"},
		"git+ssh://git@github.com/acme/app.git":    {"github.com", "acme", "app"},
	}
	for u, want := range cases {
		got, err := ParseRemote(u)
		if err != nil || got != want {
			t.Errorf("ParseRemote(%q) = %+v, %v", u, got, err)
		}
	}
	for _, bad := range []string{"/srv/git/app.git", "../remote.git", "acme/app", "file:///srv/acme/app.git", "https://github.com/onlyowner"} {
		if _, err := ParseRemote(bad); err == nil {
			t.Errorf("ParseRemote(%q) accepted", bad)
		}
	}
}

func client(t *testing.T, h http.HandlerFunc) *Client {
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
	c, err := NewClient(Repo{Host: strings.TrimPrefix(srv.URL, "https://"), Owner: "acme", Name: "app"},
		Options{Token: "t0ken", Transport: srv.Client().Transport, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOpenErrors(t *testing.T) {
	c := client(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Not Found"}`)
	})
	_, err := c.Open(PullRequest{Title: "t", Head: "h", Base: "main"})
	if fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "not found (404)") {
		t.Fatalf("404: %v", err)
	}
	var calls atomic.Int32
	c = client(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "token t0ken" {
			t.Errorf("auth header %q", r.Header.Get("Authorization"))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"message":"unavailable"}`)
	})
	_, err = c.Open(PullRequest{Title: "t", Head: "h", Base: "main"})
	if err == nil || calls.Load() != 4 || strings.Contains(err.Error(), "t0ken") {
		t.Fatalf("5xx: %d calls, %v", calls.Load(), err)
	}
}

func TestRequestForDryRun(t *testing.T) {
	call := Request(Repo{Host: "github.com", Owner: "acme", Name: "app"}, PullRequest{Title: "x", Head: "wt/p-integration", Base: "main"})
	if call.Method != "POST" || call.URL != "https://api.github.com/repos/acme/app/pulls" || call.Body.Head != "wt/p-integration" {
		t.Fatalf("%+v", call)
	}
	got := call.String()
	if !strings.HasPrefix(got, "POST https://api.github.com/repos/acme/app/pulls\n") || !strings.Contains(got, `"head": "wt/p-integration"`) {
		t.Fatalf("%s", got)
	}
	got = Request(Repo{Host: "ghe.example.com", Owner: "acme", Name: "app"}, PullRequest{}).String()
	if !strings.HasPrefix(got, "POST https://ghe.example.com/api/v3/repos/acme/app/pulls") {
		t.Fatalf("%s", got)
	}
}

func FuzzParseRemote(f *testing.F) {
	for _, s := range []string{"git@github.com:acme/app.git", "https://github.com/acme/app", "ssh://git@h:22/a/b", "../x/y", "a/b", "file:///a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		r, err := ParseRemote(u)
		if err != nil {
			return
		}
		if r.Host == "" || r.Owner == "" || r.Name == "" || strings.Contains(r.Owner, "/") || strings.Contains(r.Name, "/") {
			t.Fatalf("ParseRemote(%q) = %+v", u, r)
		}
	})
}
