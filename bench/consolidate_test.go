package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkConsolidate16: `consolidate` of a 16-WP plan (every WP verified
// and checkpointed, gate `true`) against sequential `git merge --no-ff` of
// the same 16 branches in a scratch worktree, and against `git merge-tree
// --write-tree` of each branch with the base, run in parallel.
func BenchmarkConsolidate16(b *testing.B) { benchConsolidate(b, 16) }

// BenchmarkScaleConsolidate128 is the same with 128 work packages (make
// bench-scale: dispatching 128 sessions takes minutes).
func BenchmarkScaleConsolidate128(b *testing.B) {
	scaleOnly(b)
	benchConsolidate(b, 128)
}

func benchConsolidate(b *testing.B, n int) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.scriptedProject()
		r.must(r.dir, nil, "git", "agentproto", "plan", "init", "demo", "--gate", "true")
		toml := "name = \"demo\"\nbase = \"main\"\ngate = \"true\"\n"
		for w := 0; w < n; w++ {
			wp := fmt.Sprintf("WP%d", w)
			if w > 0 {
				r.must(r.dir, nil, "git", "agentproto", "plan", "new-wp", "demo", wp)
			}
			toml += fmt.Sprintf("[[wp]]\nid = %q\ntitle = \"part %d\"\nowns = [\"p%d/**\"]\n", wp, w, w)
			if w > 0 {
				toml += "depends_on = [\"WP0\"]\n"
			}
		}
		os.WriteFile(filepath.Join(r.dir, ".plans/demo/plan.toml"), []byte(toml), 0o644)
		for w := 0; w < n; w++ {
			wp := fmt.Sprintf("WP%d", w)
			step, _ := json.Marshal(map[string]string{"op": "write", "path": fmt.Sprintf("p%d/x.txt", w), "content": "x\n"})
			report := fmt.Sprintf(`{"op":"report","report":{"wp":%q,"files":["p%d/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`, wp, w)
			p := filepath.Join(r.dir, ".plans/demo", wp+"-brief.md")
			brief, _ := os.ReadFile(p)
			text := strings.Replace(string(brief), "- (fork): default (choice).", "- input: default stdin.", 1)
			os.WriteFile(p, []byte(text+"\n## Script\n```agentproto-script\n"+string(step)+"\n"+report+"\n```\n"), 0o644)
		}
		r.must(r.dir, nil, "git", "agentproto", "plan", "freeze", "demo")
		r.must(r.dir, nil, "git", "agentproto", "dispatch", "demo")
		var branches []string
		for w := 0; w < n; w++ {
			r.must(r.dir, nil, "git", "agentproto", "checkpoint", "demo", fmt.Sprintf("WP%d", w))
			branches = append(branches, fmt.Sprintf("wt/demo-wp%d", w))
		}
		ours, _ := r.run(r.dir, nil, "git", "agentproto", "consolidate", "demo")

		scratch := filepath.Join(b.TempDir(), "scratch")
		r.must(r.dir, nil, "git", "worktree", "add", "-q", "-b", "scratch", scratch, "main")
		start := time.Now()
		for _, br := range branches {
			r.must(scratch, nil, "git", "merge", "-q", "--no-ff", "--no-edit", br)
		}
		sequential := time.Since(start)

		start = time.Now()
		var wg sync.WaitGroup
		for _, br := range branches {
			wg.Add(1)
			go func(br string) {
				defer wg.Done()
				r.must(r.dir, nil, "git", "merge-tree", "--write-tree", "main", br)
			}(br)
		}
		wg.Wait()
		parallel := time.Since(start)
		b.ReportMetric(float64(ours.Microseconds())/1000, "consolidate-ms")
		b.ReportMetric(float64(sequential.Microseconds())/1000, "git-merge-ms")
		b.ReportMetric(float64(parallel.Microseconds())/1000, "parallel-merge-tree-ms")
		b.ReportMetric(ours.Seconds()/sequential.Seconds(), "ratio-vs-git-merge")
		b.ReportMetric(ours.Seconds()/parallel.Seconds(), "ratio-vs-merge-tree")
	}
}
