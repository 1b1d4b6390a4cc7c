package bench

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/sandbox"
)

// BenchmarkSixtyFourAdaptersFloor: the least 64 sessions started at once
// need — 64 scripted adapters launched confined as sessions launch them
// (the sandbox launcher, its confined re-execution, the adapter, the
// go-plugin handshake) from one process and each asked one question
// (Describe) — with no daemon, no command per session, no ledger and no
// turn, against the 64 shell jobs BenchmarkSixtyFourSessions compares
// with, started at once in the same run. Its ratio is a lower bound of
// what any 64 confined sessions can reach on this machine: when it is
// above 3, BenchmarkSixtyFourSessions' target of 3 cannot be met with one
// confined adapter process per session.
func BenchmarkSixtyFourAdaptersFloor(b *testing.B) {
	const n = 64
	if s := sandbox.Probe(); s.ABI < sandbox.MinABI {
		b.Skipf("no Landlock ABI %d here", sandbox.MinABI)
	}
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		var wg sync.WaitGroup
		errs := make([]error, n)
		clients := make([]*host.Client, n)
		start := time.Now()
		for k := 0; k < n; k++ {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				// Options of its own: the policy function fills in its spec.
				c, err := host.Launch(scriptedSpec(), confinedOptions(b, dir, true))
				if err != nil {
					errs[k] = err
					return
				}
				clients[k] = c
				_, errs[k] = c.Describe(context.Background())
			}(k)
		}
		wg.Wait()
		floor := time.Since(start)
		for k, c := range clients {
			if errs[k] != nil {
				b.Fatalf("adapter %d: %v", k, errs[k])
			}
			c.Kill()
		}

		shell := shellJobs(r, n)
		b.ReportMetric(floor.Seconds(), "adapters-s")
		b.ReportMetric(shell.Seconds(), "shell-s")
		b.ReportMetric(floor.Seconds()/shell.Seconds(), "floor-ratio")
	}
}
