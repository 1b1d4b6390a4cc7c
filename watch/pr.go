package watch

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/reactions"
)

// PRRow is the plan's pull request as the last poll saw it (pr watch, or
// the daemon's): its state, and each item still open with who has it and
// the turns left, or the escalation it waits on with what was tried.
type PRRow struct {
	Number  int                 `json:"number"`
	State   string              `json:"state"`
	Head    string              `json:"head"`
	Pending []reactions.Pending `json:"pending"`
}

// prRow reads the pull request's reactions from the ledger; nil before the
// first poll.
func prRow(l gitstore.Store, p *plans.Project, cfg config.Reactions) (*PRRow, error) {
	rep, err := reactions.Status(l, p, cfg)
	if err != nil || rep == nil {
		return nil, err
	}
	return &PRRow{Number: rep.PR.Number, State: rep.PR.State, Head: short(rep.PR.Head), Pending: rep.Pending}, nil
}

// renderPR draws the pull request's section: escalations first, as they
// wait for the person watching.
func renderPR(snap *Snapshot, st styles, line func(lipgloss.Style, string)) {
	pr := snap.PR
	if pr == nil {
		return
	}
	escalated := 0
	for _, p := range pr.Pending {
		if p.Escalated {
			escalated++
		}
	}
	line(st.head, fmt.Sprintf("PULL REQUEST #%d %s at %s · %d pending, %d waiting for you", pr.Number, pr.State, pr.Head, len(pr.Pending), escalated))
	// Escalations first, each group in the ledger's order.
	var ordered []reactions.Pending
	for _, want := range []bool{true, false} {
		for _, p := range pr.Pending {
			if p.Escalated == want {
				ordered = append(ordered, p)
			}
		}
	}
	for i, p := range ordered {
		if i == 4 {
			line(st.dim, fmt.Sprintf("  … %d more (git agentproto plan status %s)", len(ordered)-i, snap.Project))
			break
		}
		head := fmt.Sprintf("  %-18s %-22s [%s] ", p.Trigger, p.Item, strings.Join(p.WPs, ","))
		if !p.Escalated {
			line(lipgloss.NewStyle(), head+p.Describe(snap.Project))
			continue
		}
		// A terminal cuts long lines: what was tried gets its own.
		line(st.bad, head+"waiting for you: "+p.Reason)
		if len(p.Tried) > 0 {
			line(lipgloss.NewStyle(), "      tried: "+strings.Join(p.Tried, "; "))
		}
	}
	if escalated > 0 {
		line(st.dim, fmt.Sprintf("  answer: git agentproto pr answer %s ITEM --choice retry|dismiss|WPn", snap.Project))
	}
}
