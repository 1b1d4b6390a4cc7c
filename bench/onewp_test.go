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

// BenchmarkOneWP: one work package through dispatch (its session, the
// agent's turn, verify) and checkpoint — a scripted agent writing one file,
// gate `true` — against the same work by hand with git: a worktree on a new
// branch, the file written, add and commit. The daemon is warm (a first
// plan ran before); each measured plan is new. Target: ratio <= 3.
func BenchmarkOneWP(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.scriptedProject()
		const runs = 7
		var ours, byHand []time.Duration
		for k := 0; k <= runs; k++ {
			p := fmt.Sprintf("p%d", k)
			r.onePlan(p)
			start := time.Now()
			r.must(r.dir, nil, "git", "agentproto", "dispatch", p)
			r.must(r.dir, nil, "git", "agentproto", "checkpoint", p, "WP0")
			d := time.Since(start)

			h := r.byHand(p)
			if k > 0 { // the first plan starts the daemon
				ours, byHand = append(ours, d), append(byHand, h)
			}
		}
		o, h := median(ours), median(byHand)
		b.ReportMetric(float64(o.Microseconds())/1000, "ours-ms")
		b.ReportMetric(float64(h.Microseconds())/1000, "by-hand-ms")
		b.ReportMetric(o.Seconds()/h.Seconds(), "ratio")
	}
}

// byHand does plan p's work with git alone: a worktree on a new branch,
// the file written, add and commit.
func (r *runner) byHand(p string) time.Duration {
	wt := filepath.Join(filepath.Dir(r.dir), "hand-"+p)
	start := time.Now()
	r.must(r.dir, nil, "git", "worktree", "add", "-q", "-b", "hand/"+p, wt, "main")
	os.MkdirAll(filepath.Join(wt, p), 0o755)
	os.WriteFile(filepath.Join(wt, p, "x.txt"), []byte("x\n"), 0o644)
	r.must(wt, nil, "git", "add", "-A")
	r.must(wt, nil, "git", "commit", "-qm", "WP0")
	return time.Since(start)
}

// onePlan writes and freezes plan p: one WP writing p/x.txt, gate true.
func (r *runner) onePlan(p string) {
	r.must(r.dir, nil, "git", "agentproto", "plan", "init", p, "--gate", "true")
	os.WriteFile(filepath.Join(r.dir, ".plans", p, "plan.toml"),
		[]byte(fmt.Sprintf("name = %q\nbase = \"main\"\ngate = \"true\"\n[[wp]]\nid = \"WP0\"\ntitle = \"one\"\nowns = [\"%s/**\"]\n", p, p)), 0o644)
	step, _ := json.Marshal(map[string]string{"op": "write", "path": p + "/x.txt", "content": "x\n"})
	report := fmt.Sprintf(`{"op":"report","report":{"wp":"WP0","files":["%s/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`, p)
	brief := filepath.Join(r.dir, ".plans", p, "WP0-brief.md")
	text, _ := os.ReadFile(brief)
	fixed := strings.Replace(string(text), "- (fork): default (choice).", "- input: default stdin.", 1)
	os.WriteFile(brief, []byte(fixed+"\n## Script\n```agentproto-script\n"+string(step)+"\n"+report+"\n```\n"), 0o644)
	r.must(r.dir, nil, "git", "agentproto", "plan", "freeze", p)
}
