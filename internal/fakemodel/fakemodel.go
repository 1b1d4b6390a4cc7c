// Package fakemodel is a loopback model provider for tests: it answers the
// Anthropic Messages API (POST /v1/messages, streamed or not, and
// count_tokens) and the OpenAI Responses API (POST /v1/responses, streamed)
// the way the real services document, from a script of replies a test
// queues. It records every request so tests can check what the agent CLI
// sent: the model, the key, the prompt.
//
// Point claude at it with ANTHROPIC_BASE_URL=URL, codex with a provider
// whose base_url is URL+"/v1" (see CodexConfig).
package fakemodel

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Key is the API key the server accepts unless Server.Key is changed; any
// other key is answered 401 as the provider would.
const Key = "sk-fake-0123456789"

// Reply is the answer to one model request.
type Reply struct {
	// Text is the assistant's text (streamed in word-sized deltas).
	Text string
	// Tool is a tool call made after Text.
	Tool *Tool
	// Status, when not 0, answers with that HTTP error and the provider's
	// documented error body instead of a message.
	Status int
	// Message overrides the error message of Status.
	Message string
	// RetryAfter is sent as the retry-after header (seconds) with Status.
	RetryAfter string
	// Cut ends the stream abruptly after the first text delta.
	Cut bool
	// Delay is the pause before each streamed delta (a slow stream).
	Delay time.Duration
	// Usage is the usage the reply reports; nil reports DefaultUsage.
	Usage *Usage
}

// Usage is what one reply says it used, in each API's documented fields
// (usage.go). Input is the uncached input.
type Usage struct {
	Input, CacheCreation, CacheRead, Output int64
}

// DefaultUsage is the usage of a reply that names none.
var DefaultUsage = Usage{Input: 12, Output: 9}

// Tool is a call of one of the agent's own tools. Input is marshalled as
// the tool's JSON arguments.
type Tool struct {
	Name  string
	Input any
	// Custom sends Input (a string) as an OpenAI custom tool call, the
	// freeform form codex's apply_patch takes.
	Custom bool
}

// Text is a plain text reply.
func Text(s string) Reply { return Reply{Text: s} }

// Call is a reply that calls a tool.
func Call(name string, input any) Reply { return Reply{Tool: &Tool{Name: name, Input: input}} }

// Fail is an HTTP error reply.
func Fail(status int) Reply { return Reply{Status: status, RetryAfter: "0"} }

// Request is one request the server received.
type Request struct {
	API    string // "anthropic" or "openai"
	Method string
	Path   string
	Header http.Header
	Body   []byte
	Model  string
	Stream bool
	// Prompt is the text of the last user message.
	Prompt string
	// Answered is what the server did: "reply", "default", or the status
	// ("" while it is still answering).
	Answered string
	// Usage is the usage the answer reported (zero for an error).
	Usage Usage
}

// Server is a running fake provider.
type Server struct {
	// URL is the base address, e.g. http://127.0.0.1:PORT.
	URL string
	// Default answers a request when the script is empty.
	Default Reply
	// Impatient answers a tool output saying a command still runs (codex's
	// "Process running with session ID N") with the next reply, as a model
	// that ends its turn before its command does; by default the server
	// polls the command with write_stdin until it has exited, as models do.
	Impatient bool

	srv     *httptest.Server
	mu      sync.Mutex
	key     string
	models  map[string]bool // nil: every model exists
	script  []Reply
	reqs    []Request
	waiters []chan struct{}
}

// New starts a server that stops when the test ends.
func New(t testing.TB) *Server {
	s := &Server{key: Key, Default: Text("Done.")}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// Close stops the server, cutting streams still running.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// SetKey changes the accepted API key.
func (s *Server) SetKey(k string) { s.mu.Lock(); s.key = k; s.mu.Unlock() }

// SetModels limits the models that exist; others get the provider's 404.
func (s *Server) SetModels(models ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = map[string]bool{}
	for _, m := range models {
		s.models[m] = true
	}
}

// Script queues replies, answered in order by the next model requests.
func (s *Server) Script(r ...Reply) {
	s.mu.Lock()
	s.script = append(s.script, r...)
	s.mu.Unlock()
}

// Pending is the number of scripted replies not yet used.
func (s *Server) Pending() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.script) }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// WaitRequests blocks until n requests have arrived or d passed, and says
// whether they did.
func (s *Server) WaitRequests(n int, d time.Duration) bool {
	deadline := time.After(d)
	for {
		s.mu.Lock()
		if len(s.reqs) >= n {
			s.mu.Unlock()
			return true
		}
		ch := make(chan struct{})
		s.waiters = append(s.waiters, ch)
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	for _, w := range s.waiters {
		close(w)
	}
	s.waiters = nil
	return len(s.reqs) - 1
}

func (s *Server) answered(n int, req *Request) {
	s.mu.Lock()
	s.reqs[n].Answered, s.reqs[n].Usage = req.Answered, req.Usage
	s.mu.Unlock()
}

// next takes the next scripted reply, or the default.
func (s *Server) next() (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script) == 0 {
		return s.Default, false
	}
	r := s.script[0]
	s.script = s.script[1:]
	return r, true
}

// body is the part of a request body both APIs share.
type body struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []json.RawMessage `json:"messages"` // Anthropic
	Input    json.RawMessage   `json:"input"`    // OpenAI: a string or items
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: raw}
	var b body
	json.Unmarshal(raw, &b)
	req.Model, req.Stream = b.Model, b.Stream
	switch {
	case strings.HasPrefix(r.URL.Path, "/v1/messages"):
		req.API, req.Prompt = "anthropic", anthropicPrompt(b.Messages)
	case r.URL.Path == "/v1/responses":
		req.API, req.Prompt = "openai", openaiPrompt(b.Input)
	case strings.HasPrefix(r.URL.Path, "/v1beta/models/"):
		req.API, req.Model, req.Prompt = "gemini", geminiModel(r.URL.Path), geminiPrompt(raw)
	}
	// Recorded on arrival (a slow stream is watched while it runs), and
	// again with what it was answered.
	n := s.record(req)
	defer func() { s.answered(n, &req) }()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.anthropic(w, r, &req)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		req.Answered = "count_tokens"
		if s.anthropicAuth(w, r, &req) {
			writeJSON(w, 200, map[string]any{"input_tokens": len(raw) / 4})
		}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		s.openai(w, r, &req)
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1beta/models/"):
		s.gemini(w, r, &req)
	case r.URL.Path == "/v1/models" || strings.HasPrefix(r.URL.Path, "/v1/models/"):
		s.modelsList(w, r, &req)
	default:
		req.Answered = "404"
		writeJSON(w, 404, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "Not Found"}})
	}
}

func (s *Server) modelExists(m string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.models == nil || s.models[m]
}

func (s *Server) keyIs(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return k == s.key
}

// modelsList answers GET /v1/models with the known models (codex and
// claude may list models); an unrestricted server lists none.
func (s *Server) modelsList(w http.ResponseWriter, r *http.Request, req *Request) {
	s.mu.Lock()
	var data []map[string]any
	for m := range s.models {
		data = append(data, map[string]any{"id": m, "type": "model", "object": "model", "display_name": m, "created_at": "2025-01-01T00:00:00Z"})
	}
	s.mu.Unlock()
	req.Answered = "models"
	writeJSON(w, 200, map[string]any{"data": data, "object": "list", "has_more": false})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, marshal(v))
}

// words splits text into stream deltas that join back to it.
func words(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s[1:], ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// sse writes server-sent events, flushing each.
type sse struct {
	w     http.ResponseWriter
	delay time.Duration
	gone  <-chan struct{}
}

func newSSE(w http.ResponseWriter, r *http.Request, delay time.Duration) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	return &sse{w: w, delay: delay, gone: r.Context().Done()}
}

// event writes one event; it is false once the client has gone.
func (e *sse) event(name string, data any) bool {
	if _, err := io.WriteString(e.w, "event: "+name+"\ndata: "+marshal(data)+"\n\n"); err != nil {
		return false
	}
	e.w.(http.Flusher).Flush()
	return true
}

// pause waits before a delta of a slow stream; false if the client left.
func (e *sse) pause() bool {
	if e.delay == 0 {
		return true
	}
	select {
	case <-time.After(e.delay):
		return true
	case <-e.gone:
		return false
	}
}

// cut drops the connection without ending the response.
func cut() { panic(http.ErrAbortHandler) }

// marshal encodes v as the providers do, without escaping <, > and &.
func marshal(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
