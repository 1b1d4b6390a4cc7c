package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
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
