package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentproto/agentproto/pipeline"
)

// serve starts a server of the three-WP plan on loopback; bump moves the
// ledger's stamp after fix changed the facts.
func serve(t *testing.T) (url, addr string, s *Server, bump func(fix func(*Facts))) {
	t.Helper()
	var stamp atomic.Uint64
	stamp.Store(1)
	facts := threeWPs()
	s = &Server{Project: "demo", Token: "secret-token", Poll: 20 * time.Millisecond, Stamp: func() uint64 { return stamp.Load() },
		Load: func() (*Page, error) { return Build(facts, nil), nil }}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return s.URL(ln), ln.Addr().String(), s, func(fix func(*Facts)) {
		s.mu.Lock()
		fix(facts)
		s.mu.Unlock()
		stamp.Add(1)
	}
}

func get(t *testing.T, url string, header map[string]string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestThePageIsServedOnlyWithItsToken(t *testing.T) {
	url, addr, _, _ := serve(t)
	code, body, h := get(t, url, nil)
	if code != 200 || !strings.Contains(body, "WP1 failed verification") {
		t.Fatalf("with the token: %d\n%s", code, body)
	}
	if h.Get("Referrer-Policy") != "no-referrer" || !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("headers: %v", h)
	}
	base := "http://" + addr
	for name, c := range map[string]struct {
		url    string
		header map[string]string
	}{
		"no token":         {base + "/", nil},
		"a wrong token":    {base + "/?token=secret-tokeo", nil},
		"another host":     {url, map[string]string{"Host": "evil.example:" + addr[strings.LastIndex(addr, ":")+1:]}},
		"another port":     {url, map[string]string{"Host": "127.0.0.1:1"}},
		"another origin":   {url, map[string]string{"Origin": "http://evil.example"}},
		"a null origin":    {url, map[string]string{"Origin": "null"}},
		"a cross-site get": {url, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"events, no token": {base + "/events", nil},
		"script, no token": {base + "/live.js", nil},
	} {
		if code, body, _ := get(t, c.url, c.header); code != http.StatusForbidden || !strings.HasPrefix(body, "refused") {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	if code, _, _ := get(t, url, map[string]string{"Origin": "http://localhost:" + addr[strings.LastIndex(addr, ":")+1:]}); code != 200 {
		t.Errorf("our own origin: %d", code)
	}
	resp, err := http.Post(url, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

func TestListenRefusesOtherAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
		if ln, err := Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) was not refused", addr)
		}
	}
}

func TestTheEventStreamSendsTheMovedLedger(t *testing.T) {
	url, _, _, bump := serve(t)
	events := strings.Replace(url, "/?token=", "/events?token=", 1) + "&since=1"
	resp, err := http.Get(events)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	bump(func(f *Facts) {
		f.Events[4].Verify.Verdict, f.Events[4].Verify.OutOfScope, f.Events[4].Verify.Gate.ExitCode = pipeline.Pass, nil, 0
		f.Events[4].Verify.Findings = []string{"fixed-by-a-second-turn"}
	})
	deadline := time.After(5 * time.Second)
	var got []string
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the stream ended: %v", got)
			}
			got = append(got, l)
			if strings.HasPrefix(l, "data: ") && strings.Contains(l, "fixed-by-a-second-turn") {
				if got[0] != "event: page" {
					t.Fatalf("the event is not named page: %v", got[:2])
				}
				return
			}
		case <-deadline:
			t.Fatalf("no update within 5s; got %d lines", len(got))
		}
	}
}

// The top of the page (its style and bar) reaches the browser before the
// ledger is read; a page that cannot be built says why, as text.
func TestThePageTopComesBeforeTheBuild(t *testing.T) {
	release := make(chan struct{})
	s := &Server{Project: "demo", Token: "tok", Stamp: func() uint64 { return 1 }, Load: func() (*Page, error) {
		<-release
		return nil, errors.New(`the ledger <script>broke</script>`)
	}}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	_, s.port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	// Were the top held back until the build, only this would release it.
	late := time.AfterFunc(5*time.Second, func() { close(release) })
	resp, err := http.Get(srv.URL + "/?token=tok")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	var top strings.Builder
	for !strings.Contains(top.String(), "</header>") {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the top did not come before the build: %q, %v", top.String(), err)
		}
		top.WriteString(line)
	}
	if !strings.Contains(top.String(), "<h1>plan demo</h1>") || !strings.Contains(top.String(), "<style>") {
		t.Fatalf("the top: %s", top.String())
	}
	if !late.Stop() {
		t.Fatal("the top came only once the page was built")
	}
	close(release)
	rest, _ := io.ReadAll(r)
	if !strings.Contains(string(rest), "the page cannot be built: the ledger &lt;script&gt;broke&lt;/script&gt;") ||
		strings.Contains(string(rest), "<script") {
		t.Fatalf("the rest after a failed build: %s", rest)
	}
}
