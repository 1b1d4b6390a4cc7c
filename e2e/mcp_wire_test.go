package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A raw JSON-RPC client sends the server what it must survive: lines that
// are not JSON, a batch, a request without method, an object as id, deep
// nesting, bytes, and messages far past the size bound, ten of 15 MiB.
// Each gets its JSON-RPC error; the server goes on, answers a real
// request after them, keeps its memory bounded, and ends when its input
// closes.
func TestMCPServerSurvivesMalformedInput(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	// The binary itself, not through git: its memory is what is measured.
	cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), "mcp")
	cmd.Dir = dir
	cmd.Env = gitEnv(homeOf(t))
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	out := bufio.NewReaderSize(outPipe, 1<<20)
	answer := func() map[string]any {
		t.Helper()
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	for _, c := range []struct {
		line string
		want float64
	}{
		{"this is not json", -32700},
		{"\x00\xff\xfe garbage", -32700},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600},
		{`{"id":7}`, -32600},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + deep + `}}`, -32600},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 6<<20) + `"}}`, -32600},
	} {
		if _, err := in.Write([]byte(c.line + "\n")); err != nil {
			t.Fatal(err)
		}
		if m := answer(); code(m) != c.want || m["id"] != nil {
			t.Errorf("%.40q: answered %v, want error %v with a null id", c.line, m, c.want)
		}
	}
	big := []byte(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("y", 15<<20) + "\"}}\n")
	for i := 0; i < 10; i++ {
		if _, err := in.Write(big); err != nil {
			t.Fatal(err)
		}
		if m := answer(); code(m) != -32600 {
			t.Fatalf("message %d of 15 MiB: %v", i, m)
		}
	}
	in.Write([]byte(`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"))
	if m := answer(); m["id"] != float64(9) || m["result"] == nil {
		t.Fatalf("the server did not go on: %v", m)
	}
	if kb := peakRSS(t, cmd.Process.Pid); kb > 200<<10 {
		t.Errorf("the server's memory peaked at %d MiB after ten 15 MiB messages", kb>>10)
	} else {
		t.Logf("peak memory after ten 15 MiB messages: %d MiB", kb>>10)
	}
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end when its input closed")
	}
}

// Answers are bounded by default: ledger_log gives the newest 50 events
// (and says there may be more), session_output the last 60 lines with a
// long line cut and marked; a session cannot be started outside the
// repository and its worktrees.
func TestMCPAnswersAreBoundedByDefault(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	sh(t, dir, batch(120, "n"), "git", "agentproto", "ledger", "append", "--batch")
	cs := mcpConnect(t, dir)
	c := mustTool(t, cs, "ledger_log", map[string]any{})
	if items, _ := c.Doc["items"].([]any); len(items) != 50 || !strings.Contains(c.Text, "there may be more") {
		t.Fatalf("ledger_log {}: %d items, %q", len(items), c.Text)
	}
	if c := callTool(t, cs, "ledger_log", map[string]any{"limit": 100000}); !c.IsError {
		t.Fatalf("a limit past the bound was taken: %.200s", c.Text)
	}
	var lines []string
	for i := 0; i < 100; i++ {
		lines = append(lines, `{"op":"say","text":"line `+strconv.Itoa(i)+`"}`)
	}
	lines = append(lines, `{"op":"say","text":"`+strings.Repeat("z", 10<<10)+`"}`)
	s := mustTool(t, cs, "session_start", map[string]any{"adapter": "scripted", "worktree": "w1", "no_ping": true, "prompt": script(lines...)})
	id, _ := s.Doc["id"].(string)
	mustTool(t, cs, "session_wait", map[string]any{"ids": []string{id}, "timeout": "30s"})
	c = mustTool(t, cs, "session_output", map[string]any{"id": id})
	items, _ := c.Doc["items"].([]any)
	last := mustJSON(items[len(items)-1])
	if len(items) != 60 || !strings.Contains(last, "…cut 6144 bytes]") || len(last) > 5<<10 {
		t.Fatalf("session_output {id}: %d items, last %.200s", len(items), last)
	}
	for _, d := range []string{"/etc", homeOf(t)} {
		if c := callTool(t, cs, "session_start", map[string]any{"adapter": "scripted", "dir": d, "no_ping": true, "prompt": "hi"}); !c.IsError || !strings.Contains(c.Text, "outside the repository") {
			t.Errorf("session_start in %s: %.300s", d, c.Text)
		}
	}
	mustTool(t, cs, "session_kill", map[string]any{"id": id})
}

// A policy that prompts on turn end fires once a session, not after each
// turn its own prompt causes; asked to repeat, it does until the
// supervisor cancels it through MCP; a prompt file holding a secret of
// ours is not sent.
func TestPromptPolicyFiresOnceUnlessToldToRepeat(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	prompt := filepath.Join(t.TempDir(), "again.txt")
	os.WriteFile(prompt, []byte(script(`{"op":"say","text":"again"}`)), 0o644)
	turns := func(id string) int {
		return sessionJSONTurns(t, dir, id)
	}
	// Each session's first turn lasts 2 s: the policy is attached while
	// it runs, so its end fires the policy.
	start := func() string {
		out := must(t, dir, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", script(`{"op":"sleep","ms":2000}`))
		return strings.TrimSpace(out)
	}
	once := start()
	must(t, dir, "git", "agentproto", "policy", "attach", once, "--do", "prompt-file:"+prompt)
	waitFor(t, "the policy's turn", func() bool { return turns(once) >= 2 })
	time.Sleep(2 * time.Second) // a policy firing again would have sent its next turn by now
	if n := turns(once); n != 2 {
		t.Errorf("a prompting policy gave %d turns, want 2 (the first and the one it sent)", n)
	}
	cs := mcpConnect(t, dir)
	rep := start()
	c := mustTool(t, cs, "policy_attach", map[string]any{"sessions": []string{rep}, "do": "prompt-file:" + prompt, "repeat": true})
	pid, _ := c.Doc["id"].(string)
	waitFor(t, "the repeating policy to fire three times", func() bool { return turns(rep) >= 4 })
	mustTool(t, cs, "policy_cancel", map[string]any{"id": pid})
	time.Sleep(500 * time.Millisecond)
	settled := turns(rep)
	time.Sleep(2 * time.Second)
	if n := turns(rep); n > settled+1 {
		t.Errorf("a canceled policy went on: %d turns, then %d", settled, n)
	}
	// A prompt file with our token in it is refused, not sent.
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("use "+hostileToken), 0o644)
	leak := start()
	if _, errOut, err := shEnv(t, dir, []string{"GH_TOKEN=" + hostileToken}, "git", "agentproto", "policy", "attach", leak, "--do", "prompt-file:"+secret); err != nil {
		t.Fatalf("attach: %v %s", err, errOut)
	}
	time.Sleep(4 * time.Second) // its first turn (2 s) ended, and the policy fired on it
	if n := turns(leak); n != 1 {
		t.Errorf("the secret prompt was sent: %d turns", n)
	}
	if ls := must(t, dir, "git", "agentproto", "policy", "ls", "--json"); !strings.Contains(ls, secret) || !strings.Contains(ls, `"ok":false`) {
		t.Errorf("the policy did not fire and refuse the secret prompt: %s", ls)
	}
}

func sessionJSONTurns(t *testing.T, dir, id string) int {
	t.Helper()
	var recs []struct {
		ID    string
		Turns int
	}
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")), &recs)
	for _, r := range recs {
		if r.ID == id {
			return r.Turns
		}
	}
	return -1
}
