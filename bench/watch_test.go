package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/testbin"
)

// BenchmarkWatchSixteenSessions: the CPU the live view takes, as a share
// of one core, while 16 sessions run and print a line every 400 ms each.
// git agentproto watch runs in a tmux pane of 120×40; its own process's
// user and system time are read from /proc over ten seconds.
func BenchmarkWatchSixteenSessions(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed")
	}
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		work := filepath.Join(r.dir, "work")
		os.MkdirAll(work, 0o755)
		ops := []string{}
		for k := 0; k < 40; k++ {
			ops = append(ops, fmt.Sprintf(`{"op":"say","text":"line %d"}`, k), `{"op":"sleep","ms":400}`)
		}
		prompt := "```agentproto-script\n" + strings.Join(ops, "\n") + "\n```"
		var wg sync.WaitGroup
		for k := 0; k < 16; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.must(r.dir, nil, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", work, "--no-ping", "--prompt", prompt)
			}()
		}
		wg.Wait()

		socket := filepath.Join(b.TempDir(), "tmux.sock")
		env := testbin.Env(binDir, r.home)
		cmd := exec.Command("tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-c", r.dir,
			"exec "+filepath.Join(binDir, "git-agentproto")+" watch")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("tmux: %v\n%s", err, out)
		}
		b.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() })
		out, err := exec.Command("tmux", "-S", socket, "display", "-p", "#{pane_pid}").Output()
		if err != nil {
			b.Fatal(err)
		}
		pid := strings.TrimSpace(string(out))
		time.Sleep(2 * time.Second) // first snapshot drawn
		screen, _ := exec.Command("tmux", "-S", socket, "capture-pane", "-p").Output()
		if !strings.Contains(string(screen), "scripted") {
			b.Fatalf("the view shows no session:\n%s", screen)
		}
		t0, c0 := time.Now(), cpuTicks(b, pid)
		time.Sleep(10 * time.Second)
		t1, c1 := time.Now(), cpuTicks(b, pid)
		// Linux counts process time in USER_HZ ticks, 100 a second.
		busy := float64(c1-c0) / 100
		b.ReportMetric(100*busy/t1.Sub(t0).Seconds(), "watch-cpu-%-of-one-core")
		b.ReportMetric(16, "live-sessions")
	}
}

// cpuTicks is a process's user + system time and that of its waited-for
// children, from /proc/PID/stat.
func cpuTicks(b *testing.B, pid string) int64 {
	b.Helper()
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14, stime 15, cutime 16, cstime 17.
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	var total int64
	for _, k := range []int{11, 12, 13, 14} {
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			b.Fatalf("/proc/%s/stat: %v", pid, err)
		}
		total += n
	}
	return total
}
