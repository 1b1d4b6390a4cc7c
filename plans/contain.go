package plans

import (
	"os"
	"sort"

	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/perimeter"
)

// checkContainment refuses a perimeter (owns or shared) that reaches
// through a symlink leading out of the repository: what an executor or
// consolidate's wiring writes there would land outside the tree, where
// neither git nor verify sees it. The base tree is checked for every
// pattern; the disk of the work tree for each pattern's literal part.
func (c *checker) checkContainment() {
	escaping := c.escapingLinks()
	var root *os.Root
	if c.in.WorkTree != "" {
		if r, err := os.OpenRoot(c.in.WorkTree); err == nil {
			root = r
			defer r.Close()
		}
	}
	check := func(wp, what string, globs []perimeter.Glob) {
		for _, g := range globs {
			for _, l := range escaping {
				ex, ok := perimeter.Overlap(g, perimeter.Beneath(l.path))
				if !ok && g.Match(l.path) {
					ex, ok = l.path, true // writing the link writes its target
				}
				if ok {
					c.add(SevError, "perimeter-through-symlink", wp, PlanFile,
						"%s %q reaches %s through %s, a symlink of the base tree that leads outside the repository (%s)", what, g, perimeter.Example(ex), l.path, l.why)
					break
				}
			}
			prefix := g.LiteralPrefix()
			if root == nil || prefix == "" {
				continue
			}
			if _, err := repopath.Resolve(prefix, repopath.RootLinks(root)); err != nil {
				c.add(SevError, "perimeter-through-symlink", wp, PlanFile, "%s %q: on disk, %v", what, g, err)
			}
		}
	}
	check("", "shared", c.shared)
	for _, wp := range c.p.Plan.WPs {
		check(wp.ID, "owns", c.owns[wp.ID])
	}
}

type escapingLink struct{ path, why string }

// escapingLinks lists the symlinks of the base tree that lead outside it,
// directly or through other links.
func (c *checker) escapingLinks() []escapingLink {
	links := c.in.BaseLinks
	read := func(p string) (string, bool, error) {
		t, ok := links[p]
		return t, ok, nil
	}
	var out []escapingLink
	for p := range links {
		if _, err := repopath.Resolve(p, read); err != nil {
			out = append(out, escapingLink{p, err.Error()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}
