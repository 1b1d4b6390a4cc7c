package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/testbin"
)

// BenchmarkColdIndex100k: `ledger log --json` with no index over 100,000
// events (the rebuild streams the history in batches) against `git log`
// of the same refs: wall time (median of 3) and the command's peak memory,
// and the index's size against the packed ledger's. Targets: time <= 1.5x
// git log; memory flat in history length.
func BenchmarkColdIndex100k(b *testing.B) { benchColdIndex(b, 100000) }

// BenchmarkScaleColdIndex1M is the same at 1,000,000 events (make
// bench-scale: seeding them takes minutes).
func BenchmarkScaleColdIndex1M(b *testing.B) {
	scaleOnly(b)
	benchColdIndex(b, 1000000)
}

// scaleOnly skips a benchmark unless make bench-scale runs it.
func scaleOnly(b *testing.B) {
	if os.Getenv("AGENTPROTO_BENCH_SCALE") == "" {
		b.Skip("a scale benchmark: make bench-scale runs it")
	}
}

func benchColdIndex(b *testing.B, n int) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.seed(n)
		r.must(r.dir, nil, "git", "gc", "-q")
		index := filepath.Join(r.dir, ".git", "agentproto", "index.db")
		var git, cold []time.Duration
		var peak float64
		for k := 0; k < 3; k++ {
			git = append(git, r.timeToNull("git", "log", "--format=%H%n%B", "--glob=refs/agentproto/ledger/*"))
			os.Remove(index)
			d, rss := r.timedRSS(filepath.Join(binDir, "git-agentproto"), "ledger", "log", "--json")
			cold = append(cold, d)
			peak = max(peak, rss)
		}
		g := median(git)
		b.ReportMetric(float64(g.Microseconds())/1000, "git-log-ms")
		b.ReportMetric(float64(median(cold).Microseconds())/1000, "cold-ms")
		b.ReportMetric(median(cold).Seconds()/g.Seconds(), "cold-ratio")
		b.ReportMetric(peak, "cold-peak-MiB")
		packs, _ := filepath.Glob(filepath.Join(r.dir, ".git", "objects", "pack", "*.pack"))
		var packed int64
		for _, p := range packs {
			packed += fileSize(p)
		}
		b.ReportMetric(float64(fileSize(index))/float64(packed), "index-per-pack-size")
	}
}

// timedRSS runs prog with stdout to /dev/null and returns its wall time
// and peak resident memory in MiB.
func (r *runner) timedRSS(prog string, args ...string) (time.Duration, float64) {
	cmd := exec.Command(prog, args...)
	cmd.Dir = r.dir
	cmd.Env = testbin.Env(binDir, r.home)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		r.b.Fatalf("%s: %v", prog, err)
	}
	d := time.Since(start)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return d, float64(ru.Maxrss) / 1024
}
