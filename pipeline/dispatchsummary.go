package pipeline

import (
	"fmt"
	"slices"
	"strings"
)

// DispatchSummary says what a finished dispatch did, per work package (a
// new user cannot tell which steps it already took: it verifies every WP
// and checkpoints only those others depend on), and the command to run
// next. wps are the WPs it was asked for (none: all); waited is false when
// it only started the sessions.
func (e *Env) DispatchSummary(wps []string, waited bool) (done, next string, err error) {
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return "", "", err
	}
	p := e.Project.Name
	if !waited {
		return "sessions started; the default policy verifies each at its turn's end and kills it once verified, and the sessions daemon starts the next waves",
			"git agentproto watch " + p + " (or dispatch " + p + ", which waits for the turns and verifies; sessions ls shows them)", nil
	}
	var parts []string
	all := true
	for _, wp := range e.Project.Plan.WPs {
		if len(wps) > 0 && !slices.Contains(wps, wp.ID) {
			all = false
			continue
		}
		switch _, cp := st.Checkpoints[wp.ID]; {
		case !st.Verified(wp.ID):
			all = false
			parts = append(parts, wp.ID+" not verified")
		case cp:
			parts = append(parts, wp.ID+" verified and checkpointed")
		default:
			parts = append(parts, wp.ID+" verified")
		}
	}
	done = "done: " + strings.Join(parts, ", ")
	if !all {
		return done, "git agentproto dispatch " + p + " (continues with the rest)", nil
	}
	return done, fmt.Sprintf("git agentproto run %s (checkpoints each WP, consolidates, reviews, runs e2e; --dry-run previews the pull request, --pr opens it)", p), nil
}
