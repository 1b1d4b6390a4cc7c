package bench

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// genRepo makes a repository of n source-like files in nested directories,
// committed and packed, as a real project would be.
func (r *runner) genRepo(n int) {
	rng := rand.New(rand.NewSource(1))
	words := make([]string, 2000)
	for i := range words {
		b := make([]byte, 2+rng.Intn(8))
		for j := range b {
			b[j] = byte('a' + rng.Intn(26))
		}
		words[i] = string(b)
	}
	for i := 0; i < n; i++ {
		dir := filepath.Join(r.dir, fmt.Sprintf("pkg%02d/sub%02d", i%50, (i/50)%10))
		os.MkdirAll(dir, 0o755)
		var sb strings.Builder
		fmt.Fprintf(&sb, "// file %d\npackage x\n", i)
		for k := 20 + rng.Intn(380); k > 0; k-- {
			sb.WriteString(words[rng.Intn(len(words))])
			sb.WriteByte(' ')
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%d.go", i)), []byte(sb.String()+"\n"), 0o644)
	}
	r.must(r.dir, nil, "git", "add", "-A")
	r.must(r.dir, nil, "git", "commit", "-q", "-m", "generated")
	r.must(r.dir, nil, "git", "gc", "-q")
}

// BenchmarkWorktreeNew: `worktree new --no-setup` against `git worktree add`
// of the same base on a 5,000-file repository, alternating runs.
// Target: ratio <= 1.2.
func BenchmarkWorktreeNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.genRepo(5000)
		root := b.TempDir()
		var ours, theirs []time.Duration
		for k := 0; k < 7; k++ {
			d, _ := r.runEnv([]string{"AGENTPROTO_WORKTREES_ROOT=" + root}, r.dir, nil, "git", "agentproto", "worktree", "new", "--no-setup", fmt.Sprintf("ours%d", k))
			ours = append(ours, d)
			d, _ = r.run(r.dir, nil, "git", "worktree", "add", "-q", filepath.Join(root, fmt.Sprintf("git%d", k)), "-b", fmt.Sprintf("wt/git%d", k))
			theirs = append(theirs, d)
		}
		b.ReportMetric(float64(median(ours).Milliseconds()), "agentproto-ms")
		b.ReportMetric(float64(median(theirs).Milliseconds()), "git-worktree-add-ms")
		b.ReportMetric(median(ours).Seconds()/median(theirs).Seconds(), "ratio(target<=1.2)")
	}
}

// BenchmarkWorktreeChanges: `worktree changes` on a tree with 50 modified
// and 2,000 ignored files against `git status --porcelain` plus
// `git diff --name-status BASE`. Target: ratio <= 1.5.
func BenchmarkWorktreeChanges(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.genRepo(5000)
		os.WriteFile(filepath.Join(r.dir, ".gitignore"), []byte("build/\n"), 0o644)
		r.must(r.dir, nil, "git", "add", ".gitignore")
		r.must(r.dir, nil, "git", "commit", "-q", "-m", "ignore build")
		base := strings.TrimSpace(string(r.must(r.dir, nil, "git", "rev-parse", "HEAD")))
		root := b.TempDir()
		r.runEnv([]string{"AGENTPROTO_WORKTREES_ROOT=" + root}, r.dir, nil, "git", "agentproto", "worktree", "new", "--no-setup", "ch")
		wt := filepath.Join(root, filepath.Base(r.dir), "ch")
		for k := 0; k < 50; k++ {
			p := filepath.Join(wt, fmt.Sprintf("pkg%02d/sub%02d/file%d.go", k%50, (k/50)%10, k))
			f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("// changed\n")
			f.Close()
		}
		for k := 0; k < 2000; k++ {
			d := filepath.Join(wt, "build", fmt.Sprintf("d%02d", k%40))
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, fmt.Sprintf("o%d.o", k)), []byte("obj"), 0o644)
		}
		var ours, theirs []time.Duration
		for k := 0; k < 9; k++ {
			d, out := r.run(wt, nil, "git", "agentproto", "worktree", "changes", "ch", "--json")
			if n := strings.Count(string(out), `"path"`); n != 50 {
				b.Fatalf("changes listed %d paths, want 50", n)
			}
			ours = append(ours, d)
			d1, _ := r.run(wt, nil, "git", "status", "--porcelain")
			d2, _ := r.run(wt, nil, "git", "diff", "--name-status", base)
			theirs = append(theirs, d1+d2)
		}
		b.ReportMetric(float64(median(ours).Microseconds())/1000, "agentproto-ms")
		b.ReportMetric(float64(median(theirs).Microseconds())/1000, "git-status+diff-ms")
		b.ReportMetric(median(ours).Seconds()/median(theirs).Seconds(), "ratio(target<=1.5)")
	}
}
