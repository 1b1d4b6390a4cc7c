package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// worktreeOf is the path of the worktree whose slug holds part.
func worktreeOf(t *testing.T, dir, part string) string {
	t.Helper()
	var rows []struct{ Slug, Path string }
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "worktree", "ls", "--json")), &rows)
	for _, r := range rows {
		if strings.Contains(r.Slug, part) {
			return r.Path
		}
	}
	t.Fatalf("no worktree %s", part)
	return ""
}

// A whole dispatch through a raw client: dispatch, then dispatch_wait
// fans in over the plan's sessions until every WP is verified (the
// daemon runs the second wave meanwhile), with progress while it waits.
// A slow verify hands back a job within its wait, with progress; the
// client leaves and the server ends within 2s while the job goes on;
// a new connection's job_wait reads its result, which is in the ledger.
// A cancelled verify stops its job's processes; a cancelled
// session_start leaves no session behind.
func TestMCPLongWorkOutlivesTheClient(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	r := startRaw(t, dir)
	r.call(1, "dispatch", map[string]any{"project": "demo"})
	if isErr, doc := r.result(1, 60*time.Second); isErr {
		t.Fatalf("dispatch: %v", doc)
	}
	var stand map[string]any
	calls := 0
	for id := 2; ; id++ {
		calls++
		r.call(id, "dispatch_wait", map[string]any{"project": "demo"})
		isErr, doc := r.result(id, 60*time.Second)
		if isErr {
			t.Fatalf("dispatch_wait: %v", doc)
		}
		if stand = doc; doc["done"] == true || len(doc["needs"].([]any)) > 0 || calls == 4 {
			break
		}
	}
	if stand["done"] != true || len(stand["wps"].([]any)) != 3 {
		t.Fatalf("dispatch_wait after %d calls: %v", calls, stand)
	}
	if p := r.progress("dispatch_wait-2"); len(p) == 0 {
		t.Error("dispatch_wait sent no progress while it waited")
	}
	t.Logf("dispatch_wait: done in %d calls", calls)

	// A gate that takes 5s, in WP0's worktree (outside its perimeter:
	// the verdict is a fail, recorded all the same).
	wt := worktreeOf(t, dir, "wp0")
	os.MkdirAll(filepath.Join(wt, "tests"), 0o755)
	os.WriteFile(filepath.Join(wt, "tests/slow_test.sh"), []byte("sleep 5\n"), 0o644)
	before := strings.Count(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "wp_verified", "--json"), "\n")
	r.call(20, "verify", map[string]any{"project": "demo", "wp": "WP0", "wait": "3s"})
	isErr, job := r.result(20, 20*time.Second)
	if isErr || job["schema"] != "agentproto.job/v1" || job["state"] != "running" {
		t.Fatalf("a slow verify did not hand back a job: %v %v", isErr, job)
	}
	if p := r.progress("verify-20"); len(p) == 0 || !strings.Contains(p[0], "verify running") {
		t.Errorf("no progress while verify ran: %q", p)
	}
	took := r.close()
	if took > 2*time.Second {
		t.Errorf("the server took %s to end after its input closed", took)
	}
	t.Logf("the server ended %s after its input closed, a job running", took)

	b := startRaw(t, dir)
	b.call(1, "job_wait", map[string]any{"job": job["job"]})
	isErr, res := b.result(1, 60*time.Second)
	inner, _ := res["result"].(map[string]any)
	if !isErr || inner["schema"] != "agentproto.verify/v1" || inner["verdict"] != "fail" {
		t.Fatalf("job_wait: %v %v", isErr, res)
	}
	after := strings.Count(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "wp_verified", "--json"), "\n")
	if after != before+1 {
		t.Fatalf("the job's verification is not in the ledger: %d events, had %d", after, before)
	}

	// Cancelled: the job's processes are stopped.
	b.call(2, "verify", map[string]any{"project": "demo", "wp": "WP0"})
	time.Sleep(1 * time.Second)
	b.cancel(2)
	pid := newestJobPid(t, dir)
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatalf("the cancelled verify's job %d still runs", pid)
	}

	// Cancelled at once: the session it started is killed, none is left.
	b.call(3, "session_start", map[string]any{"adapter": "scripted", "worktree": map[string]any{"slug": "extra", "base": "main"}, "prompt": "hi", "label": "cancelled"})
	b.cancel(3)
	// A cancellation that arrives before the tool runs is answered by the
	// SDK itself (context canceled) and starts nothing; one that arrives
	// while the start runs is answered once the session is killed.
	answer := b.await(3, 20*time.Second)
	cancelledEarly := false
	if res, _ := answer["result"].(map[string]any); res != nil {
		sc, _ := res["structuredContent"].(map[string]any)
		isErr, _ := res["isError"].(bool)
		if msg, _ := sc["error"].(string); !isErr || !strings.Contains(msg, "was killed") {
			t.Errorf("the cancelled start answered %v", answer)
		}
	} else if e, _ := answer["error"].(map[string]any); e != nil && strings.Contains(fmt.Sprint(e["message"]), "context canceled") {
		cancelledEarly = true
	} else {
		t.Fatalf("the cancelled start answered %v", answer)
	}
	started := 0
	pollLedger(t, "the cancelled session ended", func() bool {
		var recs []struct{ Label, State string }
		json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")), &recs)
		started = 0
		for _, rec := range recs {
			if rec.Label != "cancelled" {
				continue
			}
			started++
			if rec.State != "exited" && rec.State != "failed" && rec.State != "cleaned" {
				return false
			}
		}
		return true
	})
	// The start was carried out before the cancellation was seen (it
	// takes the daemon longer than the notification takes to arrive):
	// what is checked above is that it was undone.
	if started != 1 && !(cancelledEarly && started == 0) {
		t.Errorf("%d sessions labelled cancelled; the start should have run and been undone", started)
	}
	if cancelledEarly {
		t.Log("the cancellation arrived before the start ran")
	} else {
		t.Log("the cancellation arrived while the start ran: it was undone")
	}
	// So is the worktree made for it.
	if ls := must(t, dir, "git", "agentproto", "worktree", "ls", "--json"); strings.Contains(ls, `"extra"`) {
		t.Errorf("the cancelled start left the worktree it made:\n%s", ls)
	}

	// A cancelled wait answers at once, not when its wait is over (the
	// worktree is made again from its kept branch).
	b.call(4, "session_start", map[string]any{"adapter": "scripted", "worktree": map[string]any{"slug": "extra", "base": "main"}, "prompt": "hi"})
	_, rec := b.result(4, 30*time.Second)
	b.call(5, "session_wait", map[string]any{"ids": []string{rec["id"].(string)}, "until": "exit", "timeout": "40s"})
	if early := b.await(5, 300*time.Millisecond); early != nil {
		t.Fatalf("session_wait answered before it was cancelled: %v", early)
	}
	sent := time.Now()
	b.cancel(5)
	if b.await(5, 5*time.Second) == nil {
		t.Fatal("the cancelled session_wait still waits")
	}
	t.Logf("the cancelled session_wait answered %s after the cancellation", time.Since(sent).Round(time.Millisecond))
	b.call(6, "session_kill", map[string]any{"id": rec["id"]})
	b.result(6, 20*time.Second)
}

// newestJobPid is the process id of the job started last.
func newestJobPid(t *testing.T, dir string) int {
	t.Helper()
	jobs, _ := filepath.Glob(filepath.Join(dir, ".git/agentproto/jobs/*/pid"))
	var newest string
	var at time.Time
	for _, j := range jobs {
		if fi, err := os.Stat(j); err == nil && fi.ModTime().After(at) {
			newest, at = j, fi.ModTime()
		}
	}
	b, _ := os.ReadFile(newest)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("no job pid in %s", newest)
	}
	return pid
}
