package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// PollEvery is how often an open page's event stream looks at the
// ledger's stamp: a stat of its refs costs microseconds, and a quarter
// second feels live.
const PollEvery = 250 * time.Millisecond

// heartbeat keeps an idle event stream open through proxies and lets the
// server notice a page that went away.
const heartbeat = 15 * time.Second

// Server serves one plan's page on loopback to whoever holds its token.
type Server struct {
	// Project names the page in the top sent before Load is called.
	Project string
	// Load builds the page from the ledger.
	Load func() (*Page, error)
	// Stamp fingerprints the ledger's refs cheaply: the page is built
	// again only when it moves.
	Stamp func() uint64
	// Token is the secret every request carries (?token=).
	Token string
	// Poll overrides PollEvery (tests).
	Poll time.Duration

	port  string
	mu    sync.Mutex
	stamp uint64
	page  *Page
	main  []byte
}

// NewToken is a fresh random token: 128 bits, as notebook servers use.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Listen opens addr, which must be a loopback address (127.0.0.1:0 picks
// a free port): the page is never served to another machine.
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("web serves on loopback only, not on %s", host)
	}
	return net.Listen("tcp", addr)
}

// URL is the address a person opens: the listener's, with the token.
func (s *Server) URL(ln net.Listener) string {
	return "http://" + ln.Addr().String() + "/?token=" + s.Token
}

// Serve serves on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.Token == "" || s.Project == "" {
		return errors.New("web: no token or no project")
	}
	_, s.port, _ = net.SplitHostPort(ln.Addr().String())
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Handler is the page, its script and its event stream, behind guard.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("GET /live.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Write([]byte(LiveJS))
	})
	mux.HandleFunc("GET /events", s.serveEvents)
	return s.guard(mux)
}

// current is the page at the ledger's present stamp, built again only
// when the stamp moved, and its main part rendered.
func (s *Server) current() (*Page, []byte, uint64, error) {
	st := s.Stamp()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.page != nil && st == s.stamp {
		return s.page, s.main, st, nil
	}
	pg, err := s.Load()
	if err != nil {
		return nil, nil, 0, err
	}
	var b bytes.Buffer
	if err := RenderMain(&b, pg); err != nil {
		return nil, nil, 0, err
	}
	s.page, s.main, s.stamp = pg, b.Bytes(), st
	return pg, s.main, st, nil
}

// servePage sends the page's top at once and the rest once the page is
// built, so that the browser paints the bar (and has parsed the style)
// while the ledger is read. The status went out with the top: a page that
// cannot be built says why in place of its main part.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	v := view{Project: s.Project, Live: true, Token: s.Token}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := render(w, "top", v); err != nil {
		return
	}
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	pg, _, st, err := s.current()
	if err != nil {
		v.Err = err.Error()
	} else {
		v.Page, v.Since = pg, strconv.FormatUint(st, 10)
	}
	// Only a reader gone makes this fail (the templates are tested), and
	// then there is no one to tell.
	render(w, "rest", v)
}

// serveEvents streams the page's main part each time the ledger moves
// from the stamp the page was built at (?since=).
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported", http.StatusInternalServerError)
		return
	}
	since, _ := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	poll := s.Poll
	if poll == 0 {
		poll = PollEvery
	}
	tick, beat := time.NewTicker(poll), time.NewTicker(heartbeat)
	defer tick.Stop()
	defer beat.Stop()
	for {
		if st := s.Stamp(); st != since {
			_, main, at, err := s.current()
			if err != nil {
				return
			}
			if err := sendEvent(w, "page", main); err != nil {
				return
			}
			fl.Flush()
			since = at
		}
		select {
		case <-r.Context().Done():
			return
		case <-beat.C:
			if _, err := w.Write([]byte(": alive\n\n")); err != nil {
				return
			}
			fl.Flush()
		case <-tick.C:
		}
	}
}

// sendEvent writes one server-sent event: each line of data on a data:
// line of its own.
func sendEvent(w http.ResponseWriter, name string, data []byte) error {
	var b bytes.Buffer
	b.WriteString("event: " + name + "\n")
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(bytes.TrimSuffix(line, []byte("\r")))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// tokenOK compares the request's token with the server's in constant time.
func (s *Server) tokenOK(r *http.Request) bool {
	got := r.URL.Query().Get("token")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.Token)) == 1
}

// livePolicy is the live page's content security policy: its own script
// and event stream, its inline style, nothing else — no other script, no
// image, no frame, no form. Escaping keeps agent text from being markup;
// the policy is what holds if a mistake ever lets some through.
const livePolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; " +
	"img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// guard refuses what is not the person the URL was given to, on this
// machine:
//   - a Host other than the loopback names of our port: a page of another
//     site whose name was made to resolve to 127.0.0.1 (DNS rebinding)
//     sends its own name;
//   - an Origin other than ours, and a cross-site fetch (Sec-Fetch-Site):
//     another page in the same browser reaching for ours;
//   - a missing or wrong token: another local user or process;
//   - any method but GET and HEAD: the page is read-only.
//
// Every answer says not to cache it and not to send the URL, token and
// all, as a Referer to a link's site.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", livePolicy)
		switch {
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			http.Error(w, "the page is read-only", http.StatusMethodNotAllowed)
		case !s.ours(r.Host):
			http.Error(w, "refused: this server answers only to its loopback address", http.StatusForbidden)
		case r.Header.Get("Origin") != "" && !s.ours(originHost(r.Header.Get("Origin"))):
			http.Error(w, "refused: requests from another origin", http.StatusForbidden)
		case r.Header.Get("Sec-Fetch-Site") == "cross-site" || r.Header.Get("Sec-Fetch-Site") == "same-site":
			http.Error(w, "refused: a request from another site", http.StatusForbidden)
		case !s.tokenOK(r):
			http.Error(w, "refused: the token is missing or wrong; open the URL git agentproto web printed", http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// ours reports whether host (HOST:PORT) names this server: a loopback
// name with our port.
func (s *Server) ours(host string) bool {
	switch host {
	case "127.0.0.1:" + s.port, "localhost:" + s.port, "[::1]:" + s.port:
		return s.port != ""
	}
	return false
}

// originHost is the HOST:PORT of an http origin, "" for anything else
// (https, "null", a file).
func originHost(origin string) string {
	const scheme = "http://"
	if len(origin) <= len(scheme) || origin[:len(scheme)] != scheme {
		return ""
	}
	return origin[len(scheme):]
}
