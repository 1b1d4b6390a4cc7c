package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An adapter that reports a prompt's turn late — later than sessions
// prompt waits for it, as a loaded machine does — still has that turn
// waited for: sessions wait returns once the turn has run, not at once on
// the previous turn's end (the scripted agent's turn_start_delay plays
// the late report; before, the write was absent with the session settled
// and no fault).
func TestWaitCoversATurnThatStartsLate(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[plugins.scripted]\noptions = { turn_start_delay = \"7s\" }\n"), 0o644)
	id := strings.TrimSpace(must(t, dir, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--worktree", "late", "--no-ping", "--prompt", "first"))
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "1m")
	if m := meta(t, dir, id); m.Turns != 1 || m.State != "settled" {
		t.Fatalf("after the first turn: %+v", m)
	}
	out := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "late", "late.txt")
	began := time.Now()
	must(t, dir, "git", "agentproto", "sessions", "prompt", id, "--text", script(`{"op":"write","path":"late.txt","content":"late\n"}`, `{"op":"say","text":"wrote late.txt"}`))
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "1m")
	if b, err := os.ReadFile(out); err != nil || string(b) != "late\n" {
		t.Fatalf("sessions wait returned %s after the prompt, before the turn wrote late.txt (%q %v): %+v", time.Since(began), b, err, meta(t, dir, id))
	}
	if m := meta(t, dir, id); m.Turns != 2 || m.State != "settled" || len(m.Faults) != 0 {
		t.Fatalf("after the late turn: %+v", m)
	}
}
