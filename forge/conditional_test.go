package forge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// A GET answered with an ETag is asked again with If-None-Match; the 304
// that comes back gives the caller the kept body, and is counted apart.
// Kept on disk, the ETags serve the next client too.
func TestConditionalGets(t *testing.T) {
	etag, body := `"v1"`, `{"number":7,"state":"open","head":{"ref":"wt/demo-integration","sha":"abc"}}`
	var got []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("If-None-Match"))
		if r.URL.Path != "/api/v3/repos/acme/app/pulls/7" || r.Header.Get("Authorization") != "token tok" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "https://")
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
	path := filepath.Join(t.TempDir(), "etags.json")
	cache := NewConditional(path)
	c, err := NewClient(Repo{Host: host, Owner: "acme", Name: "app"}, Options{Token: "tok", Transport: srv.Client().Transport, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		p, err := c.Pull(7)
		if err != nil || p.Head.SHA != "abc" {
			t.Fatalf("poll %d: %+v %v", i, p, err)
		}
	}
	if n, free := cache.Counts(); n != 1 || free != 2 {
		t.Fatalf("counted %d, 304s %d; want 1 and 2\n%s", n, free, strings.Join(got, "\n"))
	}
	if err := cache.Save(); err != nil {
		t.Fatal(err)
	}
	again := NewConditional(path)
	c2, _ := NewClient(Repo{Host: host, Owner: "acme", Name: "app"}, Options{Token: "tok", Transport: srv.Client().Transport, Cache: again})
	if _, err := c2.Pull(7); err != nil {
		t.Fatal(err)
	}
	if n, free := again.Counts(); n != 0 || free != 1 {
		t.Fatalf("a saved cache: counted %d, 304s %d", n, free)
	}
}
