package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

// Ended jobs older than the bound go; running ones, recent ones and
// anything that is not a job stay.
func TestPruneJobsKeepsWhatCanStillBeAskedFor(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-jobKeep - time.Hour)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, pid int, exit bool, at time.Time) string {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o700)
		files := map[string]string{"job.json": "{}", "pid": strconv.Itoa(pid), "err": ""}
		if exit {
			files["exit"] = "0\n"
		}
		for f, text := range files {
			p := filepath.Join(d, f)
			os.WriteFile(p, []byte(text), 0o600)
			os.Chtimes(p, at, at)
		}
		return d
	}
	endedOld := mk("j-000000000001", os.Getpid(), true, old)
	endedNew := mk("j-000000000002", os.Getpid(), true, now)
	runningOld := mk("j-000000000003", os.Getpid(), false, old)
	killedOld := mk("j-000000000004", dead.Process.Pid, false, old)
	other := mk("notes", dead.Process.Pid, true, old)

	if n := pruneJobs(dir, now, jobKeep); n != 2 {
		t.Errorf("removed %d jobs; want 2", n)
	}
	for d, want := range map[string]bool{endedOld: false, endedNew: true, runningOld: true, killedOld: false, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: kept %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}

// jobEnv is an Env whose jobs run script (a shell script standing in for
// git-agentproto) in a fresh repository.
func jobEnv(t *testing.T, script string) *Env {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fake-agentproto")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return Open(testRepo(t), []string{bin, "serve"})
}

// A job that ends within the wait gives its document; one that does not
// is handed back, found again by its id, and stopped by Cancel.
func TestJobsRunWaitAndCancel(t *testing.T) {
	ctx := context.Background()
	e := jobEnv(t, `if [ "$1" = slow ]; then sleep 30; fi; echo '{"ok":true}'`)
	j, done, err := e.RunJob(ctx, "verify", []string{"fast"}, 10*time.Second, nil)
	if err != nil || !done {
		t.Fatalf("fast job: done %v, %v", done, err)
	}
	if doc, err := j.Outcome(); err != nil || string(doc) != `{"ok":true}` {
		t.Fatalf("fast job's outcome: %s, %v", doc, err)
	}
	j, done, err = e.RunJob(ctx, "review", []string{"slow"}, 0, nil)
	if err != nil || done || !strings.Contains(j.Handoff().Note, j.Doc.Job) {
		t.Fatalf("slow job: done %v, %v, %+v", done, err, j.Handoff())
	}
	again, err := e.OpenJob(ctx, j.Doc.Job)
	if err != nil || again.Doc.Tool != "review" {
		t.Fatalf("OpenJob: %+v, %v", again, err)
	}
	d, err := again.Cancel(ctx)
	if err != nil || d.State != "ended" || d.ExitCode == nil || *d.ExitCode == 0 {
		t.Fatalf("Cancel: %+v, %v", d, err)
	}
	if _, err := e.OpenJob(ctx, "j-nothere"); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("a bad job id: %v", err)
	}
}
