package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkPlanCheck: `plan check` of a four-WP plan on a 5,000-file
// repository with 50 symlinks (perimeters are checked against the base
// tree's links and, for their literal part, the disk) against
// `git ls-tree -r HEAD`, the least any check of the base tree reads.
func BenchmarkPlanCheck(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.genRepo(5000)
		for k := 0; k < 50; k++ {
			os.Symlink(fmt.Sprintf("sub%02d", k%10), filepath.Join(r.dir, fmt.Sprintf("pkg%02d", k), "link"))
		}
		r.must(r.dir, nil, "git", "add", "-A")
		r.must(r.dir, nil, "git", "commit", "-q", "-m", "links")
		r.must(r.dir, nil, "git", "agentproto", "init")
		r.must(r.dir, nil, "git", "agentproto", "plan", "init", "demo", "--gate", "true")
		plan := "name = \"demo\"\nbase = \"main\"\ngate = \"true\"\nshared = [\"go.mod\"]\n" +
			"[[wp]]\nid = \"WP0\"\nowns = [\"api/**\"]\n"
		for w := 1; w <= 3; w++ {
			r.must(r.dir, nil, "git", "agentproto", "plan", "new-wp", "demo", fmt.Sprintf("WP%d", w))
			plan += fmt.Sprintf("[[wp]]\nid = \"WP%d\"\nowns = [\"pkg%d*/**\", \"pkg%02d/sub0?/*.go\"]\ndepends_on = [\"WP0\"]\n", w, w, 40+w)
		}
		os.WriteFile(filepath.Join(r.dir, ".plans/demo/plan.toml"), []byte(plan), 0o644)
		briefs, _ := filepath.Glob(filepath.Join(r.dir, ".plans/demo/WP*-brief.md"))
		for _, p := range briefs {
			t, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(t), "- (fork): default (choice).", "- input: default stdin.", 1)), 0o644)
		}
		var ours, theirs []time.Duration
		for k := 0; k < 7; k++ {
			ours = append(ours, (r.timeToNull("git", "agentproto", "plan", "check", "demo")))
			theirs = append(theirs, (r.timeToNull("git", "ls-tree", "-r", "HEAD")))
		}
		o, t := median(ours), median(theirs)
		b.ReportMetric(float64(o.Milliseconds()), "agentproto-ms")
		b.ReportMetric(float64(t.Milliseconds()), "git-ls-tree-ms")
		b.ReportMetric(o.Seconds()/t.Seconds(), "ratio")
	}
}
