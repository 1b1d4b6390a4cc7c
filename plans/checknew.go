package plans

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/perimeter"
)

// ownedGlob is one owns glob of a work package.
type ownedGlob struct {
	wp string
	g  perimeter.Glob
}

// checkNewFiles says, once, which owns globs match no file of the base
// tree. Most are the files a WP will create, which is fine: a glob that
// covers a path the SPEC's "## Changes" names is taken as such and not
// mentioned; the others make one warning, so a typo can still be seen
// without a line per new file on a correct plan.
func (c *checker) checkNewFiles() {
	var targets []string
	if spec, err := os.ReadFile(filepath.Join(c.p.Dir, "SPEC.md")); err == nil {
		targets = changeMentions(string(spec))
	}
	var rest []ownedGlob
	for _, u := range c.unmatched {
		if !matchesOne(u.g, targets) {
			rest = append(rest, u)
		}
	}
	switch len(rest) {
	case 0:
	case 1:
		c.add(SevWarning, "glob-matches-nothing", rest[0].wp, PlanFile, "owns %q matches no file of the base tree (fine for new files)", rest[0].g)
	default:
		var names []string
		wp := rest[0].wp
		for _, u := range rest {
			names = append(names, fmt.Sprintf("%s %q", u.wp, u.g))
			if u.wp != wp {
				wp = ""
			}
		}
		c.add(SevWarning, "glob-matches-nothing", wp, PlanFile, "%d owns globs match no file of the base tree (fine for new files; the SPEC's ## Changes naming them says so): %s",
			len(rest), strings.Join(names, ", "))
	}
}

func matchesOne(g perimeter.Glob, paths []string) bool {
	for _, p := range paths {
		if g.Match(p) {
			return true
		}
	}
	return false
}
