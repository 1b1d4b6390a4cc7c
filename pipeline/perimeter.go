package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/plans"
)

// withPerimeter gives a WP's session its perimeter in the environment, so
// an adapter that sees the agent's writes as they happen (acp) refuses
// those verify would flag later: the WP's own globs are allowed, shared
// files and the other WPs' globs are not. A value the caller had is
// replaced, never merged.
func withPerimeter(env []string, p *plans.Project, wp plans.WP) []string {
	spec := perimeter.Spec{Allow: append([]string{}, wp.Owns...), Deny: append([]string{}, p.Plan.Shared...)}
	for _, other := range p.Plan.WPs {
		if other.ID != wp.ID {
			spec.Deny = append(spec.Deny, other.Owns...)
		}
	}
	b, _ := json.Marshal(spec) // strings only: cannot fail
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, perimeter.Env+"=") {
			out = append(out, kv)
		}
	}
	return append(out, perimeter.Env+"="+string(b))
}

// perimeterDirs are the directories of the worktree at wt the WP's
// session may write ([sandbox] perimeter = "narrow"): those its globs lie
// in. None (all of the worktree) when the sandbox is widened to the
// worktree or a glob can match at its root; verify judges each file
// either way.
func perimeterDirs(sb config.Sandbox, wp plans.WP, wt string) []string {
	if !sb.NarrowPerimeter() {
		return nil
	}
	dirs, ok := perimeter.Dirs(wp.Owns, func(rel string) bool {
		fi, err := os.Lstat(filepath.Join(wt, filepath.FromSlash(rel)))
		return err == nil && fi.IsDir()
	})
	if !ok {
		return nil
	}
	return dirs
}
