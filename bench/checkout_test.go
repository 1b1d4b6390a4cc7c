package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkWorktreeNewConverted: the same 5,000-file repository with
// attributes. "eol" (text eol=crlf on every file) is converted on our own
// checkout; "ident" ($Id$ expanded) goes through git's checkout. Each
// against git worktree add of the same base, alternating runs.
func BenchmarkWorktreeNewConverted(b *testing.B) {
	for _, c := range []struct{ name, attrs string }{
		{"eol", "*.go text eol=crlf\n"},
		{"ident", "*.go ident\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r := newRunner(b)
				r.genRepo(5000)
				os.WriteFile(filepath.Join(r.dir, ".gitattributes"), []byte(c.attrs), 0o644)
				r.must(r.dir, nil, "git", "add", ".gitattributes")
				r.must(r.dir, nil, "git", "commit", "-q", "-m", "attributes")
				root := b.TempDir()
				var ours, theirs []time.Duration
				for k := 0; k < 5; k++ {
					d, _ := r.runEnv([]string{"AGENTPROTO_WORKTREES_ROOT=" + root}, r.dir, nil, "git", "agentproto", "worktree", "new", "--no-setup", fmt.Sprintf("ours%d", k))
					ours = append(ours, d)
					d, _ = r.run(r.dir, nil, "git", "worktree", "add", "-q", filepath.Join(root, fmt.Sprintf("git%d", k)), "-b", fmt.Sprintf("wt/git%d", k))
					theirs = append(theirs, d)
				}
				b.ReportMetric(float64(median(ours).Milliseconds()), "agentproto-ms")
				b.ReportMetric(float64(median(theirs).Milliseconds()), "git-worktree-add-ms")
				b.ReportMetric(median(ours).Seconds()/median(theirs).Seconds(), "ratio")
			}
		})
	}
}
