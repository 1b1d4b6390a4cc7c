package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkSixtyFourSessions: 64 scripted sessions started at once through
// the daemon (each writes a file and says done), until all settled, against
// 64 shell jobs doing the same started at once; then the memory the settled
// sessions' adapter processes (and the sandbox launchers holding them)
// still hold, at once and after release_after. Target: ratio <= 3.
func BenchmarkSixtyFourSessions(b *testing.B) {
	const n = 64
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.must(r.dir, nil, "git", "agentproto", "init")
		r.must(r.dir, nil, "git", "agentproto", "sessions", "ls") // the daemon up
		ids := make([]string, n)
		var wg sync.WaitGroup
		start := time.Now()
		for k := range ids {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				work := filepath.Join(r.dir, "work", strconv.Itoa(k))
				os.MkdirAll(work, 0o755)
				prompt := "```agentproto-script\n{\"op\":\"write\",\"path\":\"f.txt\",\"content\":\"x\"}\n{\"op\":\"say\",\"text\":\"done\"}\n```"
				_, out := r.run(r.dir, nil, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--no-ping", "--dir", work, "--prompt", prompt)
				ids[k] = strings.TrimSpace(string(out))
			}(k)
		}
		wg.Wait()
		r.must(r.dir, nil, "git", append([]string{"agentproto", "sessions", "wait", "--until", "turn-end", "--timeout", "300s"}, ids...)...)
		ours := time.Since(start)
		held := settledRSS(r.dir)
		// Then [sessions] release_after (default 10s) lets the idle
		// adapters go: what they hold once it has passed.
		waited := time.Now()
		released := held
		for time.Since(waited) < 30*time.Second && released > 0 {
			time.Sleep(500 * time.Millisecond)
			released = settledRSS(r.dir)
		}

		shell := shellJobs(r, n)
		for k := 0; k < n; k++ {
			if b, err := os.ReadFile(filepath.Join(r.dir, "work", strconv.Itoa(k), "f.txt")); err != nil || string(b) != "x" {
				r.b.Fatalf("session %d did not write its file: %v", k, err)
			}
		}
		b.ReportMetric(ours.Seconds(), "ours-s")
		b.ReportMetric(shell.Seconds(), "shell-s")
		b.ReportMetric(ours.Seconds()/shell.Seconds(), "ratio")
		b.ReportMetric(held, "settled-adapters-MiB")
		b.ReportMetric(released, "released-adapters-MiB")
		b.ReportMetric(time.Since(waited).Seconds(), "until-released-s")
	}
}

// shellJobs is the floor the sessions are held against: n shell jobs
// started at once, each writing a file and saying done; how long until
// all have ended.
func shellJobs(r *runner, n int) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for k := 0; k < n; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			work := filepath.Join(r.dir, "shell", strconv.Itoa(k))
			os.MkdirAll(work, 0o755)
			r.must(work, nil, "sh", "-c", "printf x > f.txt; echo done")
		}(k)
	}
	wg.Wait()
	return time.Since(start)
}

// settledRSS is what the scripted adapters and their sandbox launchers
// under dir hold, in MiB.
func settledRSS(dir string) float64 {
	return adapterRSS("agentproto-adapter-scripted", dir) + adapterRSS("agentproto-sandbox", dir)
}

// adapterRSS sums the resident memory of the running processes whose
// command is name and whose working directory is under dir, in MiB.
func adapterRSS(name, dir string) float64 {
	procs, _ := filepath.Glob("/proc/[0-9]*/comm")
	var kib int
	for _, c := range procs {
		comm, err := os.ReadFile(c)
		if err != nil || !strings.HasPrefix(name, strings.TrimSpace(string(comm))) {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join(filepath.Dir(c), "cwd")); err != nil || !strings.HasPrefix(cwd, dir) {
			continue
		}
		status, err := os.ReadFile(filepath.Join(filepath.Dir(c), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				v, _ := strconv.Atoi(f[1])
				kib += v
			}
		}
	}
	return float64(kib) / 1024
}
