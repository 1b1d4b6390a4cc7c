package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
)

func scriptedSpec() host.Spec {
	return host.Spec{Name: "scripted", Path: filepath.Join(binDir, "agentproto-adapter-scripted")}
}

func pluginEnv() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")} }

// BenchmarkAdapterLaunch: launch + handshake + Describe of a real plugin
// subprocess (checksum pinned). Target: median <= 100 ms.
func BenchmarkAdapterLaunch(b *testing.B) {
	spec := scriptedSpec()
	sum, err := host.FileSHA256(spec.Path)
	if err != nil {
		b.Fatal(err)
	}
	spec.SHA256 = sum
	for i := 0; i < b.N; i++ {
		var ds []time.Duration
		for k := 0; k < 15; k++ {
			start := time.Now()
			c, err := host.Launch(spec, host.LaunchOptions{Env: pluginEnv()})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Describe(context.Background()); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
			c.Kill()
		}
		b.ReportMetric(float64(median(ds).Microseconds())/1000, "median-ms(target<=100)")
	}
}

func startScripted(b *testing.B) *host.Client {
	c, err := host.Launch(scriptedSpec(), host.LaunchOptions{Env: pluginEnv()})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(context.Background(), sdk.StartRequest{SessionID: "bench", Dir: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkPromptRoundTrip: a prompt that asks no agent work, host to
// plugin and back. Target: p50 <= 200 µs.
func BenchmarkPromptRoundTrip(b *testing.B) {
	c := startScripted(b)
	defer c.Kill()
	ctx := context.Background()
	for k := 0; k < 200; k++ {
		c.Prompt(ctx, "", false)
	}
	for i := 0; i < b.N; i++ {
		ds := make([]time.Duration, 0, 5000)
		for k := 0; k < 5000; k++ {
			start := time.Now()
			if err := c.Prompt(ctx, "", false); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1000, "p50-µs(target<=200)")
		b.ReportMetric(float64(ds[len(ds)*99/100].Nanoseconds())/1000, "p99-µs")
	}
}

// BenchmarkOutputStreaming: 256 MiB of agent output through Events.
// Target: >= 50 MB/s.
func BenchmarkOutputStreaming(b *testing.B) {
	for i := 0; i < b.N; i++ {
		c := startScripted(b)
		const total = 256 << 20
		ctx, cancel := context.WithCancel(context.Background())
		got := 0
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.Events(ctx, 0, func(e *host.Event) error {
				got += len(e.Data)
				if e.Kind == host.TurnEnded {
					cancel()
				}
				return nil
			})
		}()
		start := time.Now()
		if err := c.Prompt(context.Background(), "```agentproto-script\n{\"op\":\"flood\",\"bytes\":"+fmt.Sprint(total)+"}\n```", false); err != nil {
			b.Fatal(err)
		}
		<-done
		d := time.Since(start)
		c.Kill()
		if got != total {
			b.Fatalf("received %d bytes, want %d", got, total)
		}
		b.ReportMetric(float64(total)/1e6/d.Seconds(), "MB/s(target>=50)")
	}
}

// BenchmarkSixteenSessions: 16 scripted sessions started at once through
// the daemon; all finish and every lifecycle event is recorded once.
func BenchmarkSixteenSessions(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		work := filepath.Join(r.dir, "work")
		os.MkdirAll(work, 0o755)
		prompt := "```agentproto-script\n{\"op\":\"write\",\"path\":\"f.txt\",\"content\":\"x\"}\n{\"op\":\"sleep\",\"ms\":300}\n{\"op\":\"say\",\"text\":\"done\"}\n```"
		ids := make([]string, 16)
		var wg sync.WaitGroup
		start := time.Now()
		for k := range ids {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				_, out := r.run(r.dir, nil, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", work, "--prompt", prompt)
				ids[k] = strings.TrimSpace(string(out))
			}(k)
		}
		wg.Wait()
		r.must(r.dir, nil, "git", append([]string{"agentproto", "sessions", "wait", "--timeout", "120s"}, ids...)...)
		d := time.Since(start)
		out := string(r.must(r.dir, nil, "git", "agentproto", "ledger", "log", "--json"))
		// Each session: launched once, then a turn for the liveness ping
		// and a turn for the prompt.
		for kind, want := range map[string]int{"session_launched": 16, "session_running": 32, "session_settled": 32} {
			if n := strings.Count(out, `"kind":"`+kind+`"`); n != want {
				b.Fatalf("%d %s events, want %d", n, kind, want)
			}
		}
		for _, id := range ids {
			if strings.Count(out, `"id":"session/`+id+`/1-launched"`) != 1 {
				b.Fatalf("session %s launched event missing or repeated", id)
			}
		}
		b.ReportMetric(d.Seconds(), "seconds-for-16")
		b.ReportMetric(16, "sessions-finished")
	}
}
