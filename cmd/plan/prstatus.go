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
func printPR(w io.Writer, pr *app.PRReport) {
	if pr == nil {
		return
	}
	fmt.Fprintf(w, "  pull request #%d %s at %.12s\n", pr.PR.Number, pr.PR.State, pr.PR.Head)
	for _, p := range pr.Pending {
		state := fmt.Sprintf("%d retries left", p.RetriesLeft)
		if p.Escalated {
			state = "waiting for the supervisor: " + p.Reason
		}
		fmt.Fprintf(w, "    %s %s [%s]: %s\n", p.Trigger, p.Item, strings.Join(p.WPs, ", "), state)
	}
}
