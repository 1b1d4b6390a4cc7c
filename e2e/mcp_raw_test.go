package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// rawMCP is a JSON-RPC client written against the wire, not an SDK: it
// sends what it is told and sorts what comes back into answers (by id)
// and notifications, so a test sees exactly what the server sent.
type rawMCP struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	mu    sync.Mutex
	cond  *sync.Cond
	ans   map[float64]map[string]any
	notes []map[string]any
	ended chan error
}

// startRaw starts `git-agentproto mcp` in dir, with args, and initializes
// it.
func startRaw(t *testing.T, dir string, args ...string) *rawMCP {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = dir, gitEnv(homeOf(t))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawMCP{t: t, cmd: cmd, in: in, ans: map[float64]map[string]any{}, ended: make(chan error, 1)}
	r.cond = sync.NewCond(&r.mu)
	t.Cleanup(func() { cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			r.mu.Lock()
			if id, ok := m["id"].(float64); ok && m["method"] == nil {
				r.ans[id] = m
			} else {
				r.notes = append(r.notes, m)
			}
			r.cond.Broadcast()
			r.mu.Unlock()
		}
		r.ended <- cmd.Wait()
	}()
	r.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	r.await(0, 30*time.Second)
	r.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return r
}

func (r *rawMCP) send(msg map[string]any) {
	r.t.Helper()
	b, _ := json.Marshal(msg)
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		r.t.Fatalf("writing to the server: %v", err)
	}
}

// call sends tools/call with a progress token named after id.
func (r *rawMCP) call(id int, tool string, args map[string]any) {
	r.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args, "_meta": map[string]any{"progressToken": tool + "-" + itoa(id)}}})
}

func (r *rawMCP) cancel(id int) {
	r.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "reason": "test"}})
}

// await is the answer to id, or nil after d.
func (r *rawMCP) await(id int, d time.Duration) map[string]any {
	r.t.Helper()
	deadline := time.Now().Add(d)
	timer := time.AfterFunc(d, func() { r.mu.Lock(); r.cond.Broadcast(); r.mu.Unlock() })
	defer timer.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.ans[float64(id)] == nil && time.Now().Before(deadline) {
		r.cond.Wait()
	}
	return r.ans[float64(id)]
}

// result is a tools/call answer's result: isError and the structured
// content.
func (r *rawMCP) result(id int, d time.Duration) (bool, map[string]any) {
	r.t.Helper()
	m := r.await(id, d)
	if m == nil {
		r.t.Fatalf("no answer to %d within %s", id, d)
	}
	res, _ := m["result"].(map[string]any)
	if res == nil {
		r.t.Fatalf("answer %d is no result: %v", id, m)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	isErr, _ := res["isError"].(bool)
	return isErr, sc
}

// progress are the progress messages sent for token.
func (r *rawMCP) progress(token string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range r.notes {
		p, _ := n["params"].(map[string]any)
		if n["method"] == "notifications/progress" && p["progressToken"] == token {
			msg, _ := p["message"].(string)
			out = append(out, msg)
		}
	}
	return out
}

// close closes the server's input and says how long it took to end.
func (r *rawMCP) close() time.Duration {
	r.t.Helper()
	start := time.Now()
	r.in.Close()
	select {
	case <-r.ended:
		return time.Since(start)
	case <-time.After(20 * time.Second):
		r.t.Fatal("the server did not end within 20s of its input closing")
	}
	return 0
}
