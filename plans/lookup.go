package plans

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
)

// PathOwners is who owns one path of a plan: WP ids, "shared" or "nobody".
type PathOwners struct {
	Path   string   `json:"path"`
	Owners []string `json:"owners"`
}

// Owners says who owns each path. A path that cannot name a file inside the
// repository is refused, since its answer would mislead.
func Owners(p *Project, paths []string) ([]PathOwners, error) {
	rows := make([]PathOwners, 0, len(paths))
	for _, path := range paths {
		if _, err := repopath.Clean(path); err != nil {
			return nil, fault.Invalidf("%v; give paths inside the repository, relative to its root", err)
		}
		rows = append(rows, PathOwners{Path: path, Owners: Owner(p, path)})
	}
	return rows, nil
}

// DefaultBase is the base a new plan starts from: the current branch, or
// HEAD when it is detached.
func DefaultBase(repo *gitrepo.Repo) string {
	if out, err := repo.Git("symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		return strings.TrimSpace(string(out))
	}
	return "HEAD"
}

// List names the plans under .plans/ of the work tree: the directories with
// a valid name that hold a plan.toml. A tree with none lists nothing.
func List(workTree string) []string {
	entries, err := os.ReadDir(filepath.Join(workTree, Dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || ValidateProject(e.Name()) != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(workTree, Dir, e.Name(), PlanFile)); err == nil {
			out = append(out, e.Name())
		}
	}
	return out
}
