package plans

import (
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// Answer records the supervisor's choice for a WP that stopped on a
// question, as a dated block in the SPEC (briefs rendered afterwards
// carry the decision) and a plan_amended event. It returns the text sent
// back to the WP's session, and false when this very answer is already
// recorded.
func Answer(p *Project, l gitstore.Store, wp, question, choice string, now time.Time) (string, bool, error) {
	if _, err := p.WP(wp); err != nil {
		return "", false, err
	}
	choice = strings.TrimSpace(choice)
	if choice == "" {
		return "", false, fault.Invalidf("--choice is empty")
	}
	text := "DECISION for " + wp + ": " + strings.TrimSpace(question) + "\nChoice: " + choice
	recorded, err := AmendFile(p, l, "SPEC.md", text, now)
	if err != nil {
		return "", false, err
	}
	prompt := "The supervisor answered the question you stopped on.\n" + text +
		"\nGo on with this choice, finish the work package and end with your agentproto-report block (without \"stopped\")."
	return prompt, recorded, nil
}
