package reactions

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/plans"
)

// Route is where an item goes: to the work packages whose perimeters own
// the files it names, each with what concerns it, or to the supervisor.
type Route struct {
	// Parts are the notes each owning WP gets (a comment's WP gets none:
	// the comment is its part).
	Parts map[string][]Note
	// Escalate says why it goes to the supervisor instead ("" when it
	// does not).
	Escalate string
}

// WPs are the owners the route sends to, in order.
func (r Route) WPs() []string {
	out := make([]string, 0, len(r.Parts))
	for wp := range r.Parts {
		out = append(out, wp)
	}
	sort.Strings(out)
	return out
}

// ownerOf is the one WP whose perimeter owns path, or why there is none.
func ownerOf(p *plans.Project, path string) (string, string) {
	owners := plans.Owner(p, path)
	switch {
	case len(owners) == 1 && owners[0] == "shared":
		return "", path + " is a shared file: no work package owns it"
	case len(owners) == 1 && owners[0] == "nobody":
		return "", path + " is in no work package's perimeter"
	case len(owners) == 1:
		return owners[0], ""
	case len(owners) == 0:
		return "", path + " is in no work package's perimeter"
	}
	return "", fmt.Sprintf("%s is claimed by %s", path, strings.Join(owners, " and "))
}

// RouteComment sends a review comment to the owner of its path.
func RouteComment(p *plans.Project, c Comment) Route {
	wp, why := ownerOf(p, c.Path)
	if wp == "" {
		return Route{Escalate: why}
	}
	return Route{Parts: map[string][]Note{wp: nil}}
}

// pathInLog matches what a log names as a file: a relative path with an
// extension, optionally followed by :LINE (go test, compilers, linters).
var pathInLog = lazyre.New(`(?:^|[\s('"\x60])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]+)(?::(\d+))?`)

// RouteCheck sends a failed check to the owners of the files its
// annotations name, else of those its log names. A check that names no
// file, or only files no single WP owns, escalates.
func RouteCheck(p *plans.Project, c Check) Route {
	notes := c.Notes
	if len(notes) == 0 {
		notes = notesFromLog(c.Log)
	}
	r := Route{Parts: map[string][]Note{}}
	var why []string
	for _, n := range notes {
		wp, reason := ownerOf(p, n.Path)
		if wp == "" {
			why = append(why, reason)
			continue
		}
		r.Parts[wp] = append(r.Parts[wp], n)
	}
	if len(r.Parts) > 0 {
		return r
	}
	if len(why) == 0 {
		return Route{Escalate: fmt.Sprintf("check %q names no file of the plan (no annotation, nothing in its log)", c.Name)}
	}
	return Route{Escalate: strings.Join(dedupe(why), "; ")}
}

// notesFromLog finds the files a log names, with the line that names
// each, first mention first.
func notesFromLog(log string) []Note {
	var out []Note
	seen := map[string]bool{}
	for _, line := range strings.Split(log, "\n") {
		for _, m := range pathInLog.FindAllStringSubmatch(line, -1) {
			path := strings.TrimPrefix(m[1], "./")
			if seen[path] || !strings.Contains(path, "/") && !strings.Contains(line, path+":") {
				continue
			}
			seen[path] = true
			n, _ := strconv.Atoi(m[2])
			out = append(out, Note{Path: path, Line: n, Message: strings.TrimSpace(line)})
		}
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
