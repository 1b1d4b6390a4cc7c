package pipeline

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// BenchmarkSnapshotOutsideAmongBranches: the snapshot of what lies
// outside a worktree (taken at dispatch and again at verify) in a
// repository holding 0 or 5,000 WP branches of earlier plans, loose. The
// WP branches are not read: 10 and 12 ms (was 12 and 162 ms).
func BenchmarkSnapshotOutsideAmongBranches(b *testing.B) {
	for _, n := range []int{0, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			testgit.Isolate(b)
			dir := testgit.Init(b)
			head := testgit.Run(b, dir, "rev-parse", "HEAD")
			var in strings.Builder
			for i := 0; i < n; i++ {
				fmt.Fprintf(&in, "create refs/heads/wt/p%d-wp%d %s\n", i/5, i%5, head)
			}
			cmd := exec.Command("git", "update-ref", "--stdin")
			cmd.Dir, cmd.Stdin = dir, strings.NewReader(in.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
			repo, err := gitrepo.Discover(dir)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o, err := SnapshotOutside(repo, "p-wp1")
				if err != nil || o["ref:refs/heads/main"] != head {
					b.Fatalf("snapshot %v: %v", o, err)
				}
			}
		})
	}
}
