package plans

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// The SPEC's "## Changes" list: the paths a plan says it will change.

var (
	changesHeading = lazyre.New(`(?im)^##+\s*changes\b.*$`)
	backquoted     = lazyre.New("`([^`\\s]+)`")
)

// ChangeTargets lists the backquoted paths of the SPEC's "## Changes" list:
// the first of each item, the path the item is about.
func ChangeTargets(spec string) []string { return changeItems(spec, false) }

// changeMentions lists every backquoted token of the "## Changes" items:
// an item may name more than one new file ("`a.go` and its test `a_test.go`").
func changeMentions(spec string) []string { return changeItems(spec, true) }

func changeItems(spec string, all bool) []string {
	sec, ok := section(spec, changesHeading)
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(sec, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "*") {
			continue
		}
		n := 1
		if all {
			n = -1
		}
		for _, m := range backquoted.FindAllStringSubmatch(t, n) {
			out = append(out, m[1])
		}
	}
	return out
}

func (c *checker) checkChangeTargets() {
	spec, err := os.ReadFile(filepath.Join(c.p.Dir, "SPEC.md"))
	if err != nil {
		c.add(SevError, "spec-unreadable", "", "SPEC.md", "cannot read SPEC.md: %v", err)
		return
	}
	targets := ChangeTargets(string(spec))
	sort.Strings(targets)
	for _, t := range targets {
		if owner := c.owner(t); owner == "" {
			c.add(SevWarning, "unowned-change-target", "", "SPEC.md", "the SPEC says %s will change, but no work package owns it and it is not shared", t)
		}
	}
}
