package bench

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSync: `sync` bringing 1,000 new events of a peer into a clone
// that holds 10,000 and then 100,000, against `git fetch` + `git push` of
// the same refs by an identical clone. Target: sync's cost constant in the
// history's length.
func BenchmarkSync(b *testing.B) { benchSync(b, 10_000, 100_000) }

// BenchmarkScaleSync1M is the same at 1,000,000 events (make bench-scale).
func BenchmarkScaleSync1M(b *testing.B) {
	scaleOnly(b)
	benchSync(b, 1_000_000)
}

func benchSync(b *testing.B, sizes ...int) {
	for i := 0; i < b.N; i++ {
		for _, n := range sizes {
			ours, floor := r1000(b, n)
			b.ReportMetric(float64(ours.Microseconds())/1000, fmt.Sprintf("sync-ms-at-%dk", n/1000))
			b.ReportMetric(float64(floor.Microseconds())/1000, fmt.Sprintf("git-ms-at-%dk", n/1000))
			b.ReportMetric(ours.Seconds()/floor.Seconds(), fmt.Sprintf("ratio-at-%dk", n/1000))
		}
	}
}

// r1000 seeds a peer with n events, clones it twice, appends 1,000 more on
// the peer, and times each clone catching up (ours, then git's floor).
func r1000(b *testing.B, n int) (ours, floor time.Duration) {
	r := newRunner(b)
	root := filepath.Dir(r.dir)
	remote := filepath.Join(root, "remote.git")
	r.must(root, nil, "git", "init", "-q", "--bare", remote)
	r.must(r.dir, nil, "git", "remote", "add", "origin", remote)
	r.must(r.dir, nil, "git", "agentproto", "init")
	r.seed(n)
	r.must(r.dir, nil, "git", "push", "-q", "origin", "main")
	r.must(r.dir, nil, "git", "agentproto", "sync")
	ourClone, gitClone := filepath.Join(root, "ours"), filepath.Join(root, "plain")
	for _, c := range []string{ourClone, gitClone} {
		r.must(root, nil, "git", "clone", "-q", remote, c)
		r.must(c, nil, "git", "agentproto", "init")
		r.must(c, nil, "git", "agentproto", "sync")
		r.must(c, nil, "git", "agentproto", "ledger", "append", "--kind", "note", "--id", "own-"+filepath.Base(c), "--data", "{}")
		r.must(c, nil, "git", "agentproto", "ledger", "log", "--limit", "1") // a warm index
	}
	r.must(r.dir, events(1000, "late"), "git", "agentproto", "ledger", "append", "--batch")
	r.must(r.dir, nil, "git", "agentproto", "sync")
	ours, _ = r.run(ourClone, nil, "git", "agentproto", "sync")
	start := time.Now()
	r.must(gitClone, nil, "git", "fetch", "-q", "origin")
	r.must(gitClone, nil, "git", "push", "-q", "origin", "refs/agentproto/ledger/*:refs/agentproto/ledger/*")
	return ours, time.Since(start)
}
