package web

import (
	"net/http"
)

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
