package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentproto/agentproto/internal/testbin"
)

// BenchmarkBatchMemory: peak memory of `ledger append --batch` fed 600 MiB
// (600 lines of 1 MiB data, over the 64 MiB batch cap: refused at the line
// that crosses it) and fed 60 MiB (under the cap: appended), against the
// input size. Target: the refused batch peaks no higher than the accepted
// one, whatever follows on stdin.
func BenchmarkBatchMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		floor, _ := r.peakRSS("/bin/true", r.inputFile(0, "t"))
		over, overOK := r.peakRSS(filepath.Join(binDir, "git-agentproto"), r.inputFile(600, "o"))
		under, underOK := r.peakRSS(filepath.Join(binDir, "git-agentproto"), r.inputFile(60, "u"))
		if overOK || !underOK {
			b.Fatalf("600 MiB accepted=%v, 60 MiB accepted=%v", overOK, underOK)
		}
		b.ReportMetric(floor, "peak-MiB-of-true")
		b.ReportMetric(over, "peak-MiB-at-600MiB-input")
		b.ReportMetric(under, "peak-MiB-at-60MiB-input")
	}
}

// inputFile writes n lines of 1 MiB data to a file. The input stays on
// disk: a child's peak memory starts from its parent's at exec, so the
// benchmark must not hold it.
func (r *runner) inputFile(n int, prefix string) *os.File {
	f, err := os.Create(filepath.Join(r.b.TempDir(), "in"))
	if err != nil {
		r.b.Fatal(err)
	}
	data := strings.Repeat("y", 1<<20-64)
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "{\"kind\":\"note\",\"id\":\"%s%d\",\"data\":{\"t\":%q}}\n", prefix, i, data)
	}
	if err := w.Flush(); err != nil {
		r.b.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		r.b.Fatal(err)
	}
	r.b.Cleanup(func() { f.Close() })
	return f
}

// peakRSS runs prog (ledger append --batch) on stdin and returns its peak
// resident memory in MiB and whether it succeeded.
func (r *runner) peakRSS(prog string, stdin *os.File) (float64, bool) {
	cmd := exec.Command(prog, "ledger", "append", "--batch")
	cmd.Dir = r.dir
	cmd.Env = testbin.Env(binDir, r.home)
	cmd.Stdin = stdin
	err := cmd.Run()
	if cmd.ProcessState == nil {
		r.b.Fatal(err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		r.b.Fatal("no resource usage")
	}
	return float64(ru.Maxrss) / 1024, err == nil
}
