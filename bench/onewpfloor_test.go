package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/sandbox"
)

// BenchmarkOneWPFloor: the program starts one WP cannot do without, run
// one after the other as dispatch and checkpoint run them — the two
// commands (`git agentproto`, here with --version), the session's
// adapter launched confined with its handshake and one question, and the
// gate `true` confined as verify runs it — with no git command, no
// worktree, no daemon and no ledger, alternating with BenchmarkOneWP's
// work by hand. floor-ratio is a lower bound of BenchmarkOneWP's ratio on
// this machine; left-to-3x-ms is what remains for everything else (the
// worktree, the agent's turn, verify's and checkpoint's git commands, the
// ledger, the daemon) if the ratio is to stay within 3.
//
// git-ms is gitFloor: the git commands no WP can do without while git
// reads the worktree and makes the commit, run alone. with-git-ratio
// adds them to the floor: the lower bound of BenchmarkOneWP's ratio
// while they stay git's; left-with-git-ms is what then remains within 3
// for the worktree, the turn through the daemon, the ledger's appends,
// the session's end and each command's own reading.
func BenchmarkOneWPFloor(b *testing.B) {
	if s := sandbox.Probe(); s.ABI < sandbox.MinABI {
		b.Skipf("no Landlock ABI %d here", sandbox.MinABI)
	}
	sandbox.ConfigureJudged(func() sandbox.JudgedConfig { return sandbox.JudgedConfig{Mode: sandbox.ModeAuto} })
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		dir := b.TempDir()
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		floor := func() time.Duration {
			start := time.Now()
			r.must(r.dir, nil, "git", "agentproto", "--version") // dispatch's start
			c, err := host.Launch(scriptedSpec(), confinedOptions(b, dir, true))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Describe(context.Background()); err != nil {
				b.Fatal(err)
			}
			c.Kill()
			cmd, _, done, err := sandbox.JudgedCommand(context.Background(), dir, env, nil, "sh", "-c", "true")
			if err != nil {
				b.Fatal(err)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("the confined gate: %v %s", err, out)
			}
			done()
			r.must(r.dir, nil, "git", "agentproto", "--version") // checkpoint's start
			return time.Since(start)
		}
		const runs = 9
		var floors, gits, withGit, byHand []time.Duration
		for k := 0; k <= runs; k++ {
			f := floor()
			g := r.gitFloor(fmt.Sprintf("p%d", k))
			h := r.byHand(fmt.Sprintf("p%d", k))
			if k > 0 { // the first run warms the page cache
				floors, gits, withGit, byHand = append(floors, f), append(gits, g), append(withGit, f+g), append(byHand, h)
			}
		}
		f, g, fg, h := median(floors), median(gits), median(withGit), median(byHand)
		b.ReportMetric(millis(f), "floor-ms")
		b.ReportMetric(millis(h), "by-hand-ms")
		b.ReportMetric(f.Seconds()/h.Seconds(), "floor-ratio")
		b.ReportMetric(millis(3*h-f), "left-to-3x-ms")
		b.ReportMetric(millis(g), "git-ms")
		b.ReportMetric(fg.Seconds()/h.Seconds(), "with-git-ratio")
		b.ReportMetric(millis(3*h-fg), "left-with-git-ms")
	}
}
