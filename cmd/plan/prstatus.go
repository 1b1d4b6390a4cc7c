package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentproto/agentproto/app"
)

// printPR shows the plan's pull request as pr watch last saw it: its
// state, and each item pending with its owners and the turns left, or
// the escalation it waits on.
func printPR(w io.Writer, r *app.PRReport) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "  pull request #%d %s at %.12s\n", r.PR.Number, r.PR.State, r.PR.Head)
	for _, p := range r.Pending {
		state := p.Describe(r.Project)
		fmt.Fprintf(w, "    %s %s [%s]: %s\n", p.Trigger, p.Item, strings.Join(p.WPs, ", "), state)
	}
}
