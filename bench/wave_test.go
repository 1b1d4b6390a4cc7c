package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkWave: one wave of 8 work packages, each starting from WP0's
// checkpoint — dispatch (their worktrees and sessions, each agent writing
// one file, verify with gate `true`) and checkpoint of each — against the
// same work by hand with git, one WP after the other. WP0 is dispatched
// before the clock starts, so the wave also checkpoints it. per-wp-ms is
// what each WP cost; set it beside BenchmarkOneWP's ours-ms for what a
// wave saves over one WP at a time.
func BenchmarkWave(b *testing.B) { benchWaves(b, 8, 8, 3) }

// BenchmarkScaleWaves32 is 32 work packages on WP0, 8 at once (make
// bench-scale): every session start and every verify also looks at the
// worktrees of the WPs before it (pipeline/siblings.go), so per-wp-ms
// grows with the plan where BenchmarkWave's does not.
func BenchmarkScaleWaves32(b *testing.B) {
	scaleOnly(b)
	benchWaves(b, 32, 8, 1)
}

func benchWaves(b *testing.B, n, parallel, runs int) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.scriptedProject()
		// A plan of one WP first, which starts the daemon.
		r.wavePlan("warm", 1)
		r.must(r.dir, nil, "git", "agentproto", "dispatch", "warm")
		var ours, byHand []time.Duration
		for k := 1; k <= runs; k++ {
			p := fmt.Sprintf("w%d", k)
			r.wavePlan(p, n)
			r.must(r.dir, nil, "git", "agentproto", "dispatch", p, "--wp", "WP0")
			start := time.Now()
			r.must(r.dir, nil, "git", "agentproto", "dispatch", p, "--max-parallel", fmt.Sprint(parallel))
			for j := 1; j <= n; j++ {
				r.must(r.dir, nil, "git", "agentproto", "checkpoint", p, fmt.Sprintf("WP%d", j))
			}
			ours = append(ours, time.Since(start))
			var h time.Duration
			for j := 1; j <= n; j++ {
				h += r.byHand(fmt.Sprintf("%s-%d", p, j))
			}
			byHand = append(byHand, h)
		}
		o, h := median(ours), median(byHand)
		b.ReportMetric(millis(o), "ours-ms")
		b.ReportMetric(millis(o)/float64(n), "per-wp-ms")
		b.ReportMetric(millis(h), "by-hand-ms")
		b.ReportMetric(o.Seconds()/h.Seconds(), "ratio")
	}
}

// wavePlan writes and freezes plan p: WP0 writing p/0/x.txt, and WP1..n,
// each depending on WP0 and writing p/j/x.txt; gate true.
func (r *runner) wavePlan(p string, n int) {
	r.must(r.dir, nil, "git", "agentproto", "plan", "init", p, "--gate", "true")
	dir := filepath.Join(r.dir, ".plans", p)
	template, _ := os.ReadFile(filepath.Join(dir, "WP0-brief.md"))
	plan := fmt.Sprintf("name = %q\nbase = \"main\"\ngate = \"true\"\n", p)
	for j := 0; j <= n; j++ {
		wp := fmt.Sprintf("WP%d", j)
		plan += fmt.Sprintf("[[wp]]\nid = %q\ntitle = \"part %d\"\nowns = [\"%s/%d/**\"]\n", wp, j, p, j)
		if j > 0 {
			plan += "depends_on = [\"WP0\"]\n"
		}
		file := fmt.Sprintf("%s/%d/x.txt", p, j)
		step, _ := json.Marshal(map[string]string{"op": "write", "path": file, "content": "x\n"})
		report := fmt.Sprintf(`{"op":"report","report":{"wp":%q,"files":[%q],"design_choices":[],"wiring":[],"exit_codes":[]}}`, wp, file)
		brief := strings.Replace(string(template), "- (fork): default (choice).", "- input: default stdin.", 1)
		brief = strings.Replace(brief, "# WP0: Freeze the interface contract", fmt.Sprintf("# %s: part %d", wp, j), 1)
		brief = strings.ReplaceAll(brief, "owns globs of WP0", "owns globs of "+wp)
		os.WriteFile(filepath.Join(dir, wp+"-brief.md"), []byte(brief+"\n## Script\n```agentproto-script\n"+string(step)+"\n"+report+"\n```\n"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "plan.toml"), []byte(plan), 0o644)
	r.must(r.dir, nil, "git", "agentproto", "plan", "freeze", p)
}
