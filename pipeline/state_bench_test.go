package pipeline

import (
	"fmt"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// BenchmarkReadStateAmongPlans: one plan's state (what dispatch, verify
// and checkpoint each read first) in a ledger holding 0, 100 or 1,000
// other plans of five WPs, each dispatched, verified and checkpointed.
// Only the plan's own records are decoded and checked, the others' index
// keys looked at: 0.8, 0.9 and 1.8 ms (was 0.5, 6.6 and 70 ms when every
// plan's records were).
func BenchmarkReadStateAmongPlans(b *testing.B) {
	for _, others := range []int{0, 100, 1000} {
		b.Run(fmt.Sprint(others), func(b *testing.B) {
			testgit.Isolate(b)
			repo, err := gitrepo.Discover(testgit.Init(b))
			if err != nil {
				b.Fatal(err)
			}
			l := gitstore.Open(repo, gitstore.Options{})
			var drafts []gitstore.Draft
			add := func(d gitstore.Draft, err error) {
				if err != nil {
					b.Fatal(err)
				}
				drafts = append(drafts, d)
			}
			for i := 0; i <= others; i++ {
				p := fmt.Sprintf("p%d", i)
				for w := 0; w < 5; w++ {
					wp, at := fmt.Sprintf("WP%d", w), fmt.Sprintf("pipeline/%s/WP%d/", p, w)
					add(dispatchedKind.Draft(at+"dispatch/1", Dispatch{Project: p, WP: wp, Worktree: Slug(p, wp), Attempt: 1}))
					add(verifiedKind.Draft(at+"verify/1", Verification{Project: p, WP: wp, Verdict: Pass}))
					add(checkpointedKind.Draft(at+"checkpoint/1", Checkpoint{Project: p, WP: wp, Commit: "c"}))
				}
			}
			if _, err := l.Append(drafts); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st, err := ReadState(l, "p0")
				if err != nil || len(st.Verifications) != 5 || len(st.Checkpoints) != 5 {
					b.Fatalf("state of p0: %+v %v", st, err)
				}
			}
		})
	}
}
