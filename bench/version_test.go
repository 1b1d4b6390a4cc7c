package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/testbin"
)

// BenchmarkVersion: `git-agentproto --version`, the start-up every command
// pays (exec, the Go runtime, package initialisation of the whole binary),
// against `git --version` and a Go hello-world built the same way (static,
// no cgo), in alternating runs. Target: <= 5 ms median. Also reports the
// same through git (`git agentproto --version`, what a user types), the
// sum of package initialisation times that GODEBUG=inittrace=1 prints, and
// the machine's load average, without which these figures mean little on
// a shared machine.
func BenchmarkVersion(b *testing.B) {
	hello := buildHello(b)
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		ours := filepath.Join(binDir, "git-agentproto")
		const runs = 200
		var direct, viaGit, git, hw []time.Duration
		for k := 0; k < runs; k++ {
			direct = append(direct, r.timeToNull(ours, "--version"))
			git = append(git, r.timeToNull("git", "--version"))
			hw = append(hw, r.timeToNull(hello))
			viaGit = append(viaGit, r.timeToNull("git", "agentproto", "--version"))
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(median(direct)), "version-ms(target<=5)")
		b.ReportMetric(ms(median(viaGit)), "git-agentproto-version-ms")
		b.ReportMetric(ms(median(git)), "git-version-ms")
		b.ReportMetric(ms(median(hw)), "hello-ms")
		b.ReportMetric(median(direct).Seconds()/median(git).Seconds(), "ratio-to-git")
		b.ReportMetric(median(direct).Seconds()/median(hw).Seconds(), "ratio-to-hello")
		b.ReportMetric(initTraceMillis(b, r, ours), "init-ms")
		b.ReportMetric(loadAverage(), "load1")
	}
}

// buildHello compiles a Go program that prints one line, as make build
// compiles ours: the floor any Go command starts from on this machine.
func buildHello(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", "hello", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building hello-world: %v\n%s", err, out)
	}
	return filepath.Join(dir, "hello")
}

var initClock = regexp.MustCompile(`(?m)^init \S+ @\S+ ms, ([0-9.]+) ms clock`)

// initTraceMillis is the median, over a few runs, of the summed clock
// time of every package's initialisation as the Go runtime reports it.
func initTraceMillis(b *testing.B, r *runner, bin string) float64 {
	b.Helper()
	var sums []time.Duration
	for k := 0; k < 21; k++ {
		cmd := exec.Command(bin, "--version")
		cmd.Dir = r.dir
		cmd.Env = append(testbin.Env(binDir, r.home), "GODEBUG=inittrace=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%s --version: %v\n%s", bin, err, out)
		}
		var sum float64
		for _, m := range initClock.FindAllStringSubmatch(string(out), -1) {
			v, _ := strconv.ParseFloat(m[1], 64)
			sum += v
		}
		sums = append(sums, time.Duration(sum*float64(time.Millisecond)))
	}
	return float64(median(sums).Microseconds()) / 1000
}

// loadAverage is the one-minute load average, or -1 where /proc has none.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	v, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	if err != nil {
		return -1
	}
	return v
}
