package forge

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
)

// Conditional makes GETs conditional, as GitHub documents for polling: an
// answer's ETag is kept, sent back as If-None-Match, and a 304 Not Modified
// — which does not count against the rate limit — is given to the caller
// as the 200 it stands for, from the kept body. It counts both kinds of
// answer, so the cost of polling can be shown. Kept on disk (Save), the
// ETags serve the next process too: `pr watch --once` from cron polls as
// cheaply as the foreground loop.
type Conditional struct {
	mu      sync.Mutex
	path    string
	entries map[string]cachedAnswer
	counted int // answers other than 304: each counts against the limit
	free    int // 304 answers
}

type cachedAnswer struct {
	ETag string `json:"etag"`
	Body []byte `json:"body"`
}

// NewConditional returns a cache kept in the file at path ("" keeps it in
// memory only). A missing or unreadable file starts empty: a cache is
// never worth a failure.
func NewConditional(path string) *Conditional {
	c := &Conditional{path: path, entries: map[string]cachedAnswer{}}
	if path == "" {
		return c
	}
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &c.entries)
	}
	if c.entries == nil {
		c.entries = map[string]cachedAnswer{}
	}
	return c
}

// Counts returns how many answers counted against the rate limit and how
// many were 304s that did not.
func (c *Conditional) Counts() (counted, notModified int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counted, c.free
}

// Save writes the cache to its file (0600: the bodies are the forge's).
func (c *Conditional) Save() error {
	if c == nil || c.path == "" {
		return nil
	}
	c.mu.Lock()
	b, err := json.Marshal(c.entries)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	tmp := c.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, c.path)
}

func (c *Conditional) wrap(rt http.RoundTripper) http.RoundTripper {
	return conditionalTransport{c: c, rt: rt}
}

type conditionalTransport struct {
	c  *Conditional
	rt http.RoundTripper
}

func (t conditionalTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := req.URL.String()
	t.c.mu.Lock()
	kept, ok := t.c.entries[key]
	t.c.mu.Unlock()
	if req.Method == http.MethodGet && ok && kept.ETag != "" {
		req = req.Clone(req.Context())
		req.Header.Set("If-None-Match", kept.ETag)
	}
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if resp.StatusCode == http.StatusNotModified && ok {
		t.c.free++
		resp.Body.Close()
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
		resp.Body = io.NopCloser(bytes.NewReader(kept.Body))
		resp.ContentLength = int64(len(kept.Body))
		resp.Header.Set("Content-Type", "application/json; charset=utf-8")
		return resp, nil
	}
	t.c.counted++
	etag := resp.Header.Get("ETag")
	if req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || etag == "" {
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	t.c.entries[key] = cachedAnswer{ETag: etag, Body: body}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
