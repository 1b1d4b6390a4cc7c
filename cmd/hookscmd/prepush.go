package hookscmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/hooks"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/pipeline"
)

// wtVerifiedCheck refuses to push a work package's branch (wt/PROJECT-wpN)
// with any commit but a state its latest verification passed: the HEAD
// verify saw, or the checkpoint of its tree. Both sides of each pushed
// ref are looked at, so HEAD:wt/demo-wp1 is caught as well.
func wtVerifiedCheck(repo *gitrepo.Repo) hooks.PrePushCheck {
	return hooks.PrePushCheck{Name: "wt-verified", Run: func(p *hooks.PrePush) error {
		if os.Getenv(allowUnverifiedEnv) != "" {
			return nil
		}
		l := gitstore.Open(repo, gitstore.Options{})
		for _, r := range p.Refs {
			if r.Deleting() {
				continue
			}
			seen := map[string]bool{}
			for _, ref := range []string{r.LocalRef, r.RemoteRef} {
				branch, ok := strings.CutPrefix(ref, "refs/heads/")
				if !ok || seen[branch] {
					continue
				}
				seen[branch] = true
				if err := pipeline.CheckBranchCommit(repo, l, branch, r.LocalSHA); err != nil {
					return fmt.Errorf("%w (or push with %s=1, or git push --no-verify)", err, allowUnverifiedEnv)
				}
			}
		}
		return nil
	}}
}
