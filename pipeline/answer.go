package pipeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
)

// Describe is the question a session stopped on, with the options it
// offered and its default, on one line.
func (s *Stop) Describe() string {
	d := s.Question
	if len(s.Options) > 0 {
		d += " (options: " + strings.Join(s.Options, " | ")
		if s.Default != "" {
			d += "; default: " + s.Default
		}
		d += ")"
	}
	return d
}

// Answered is what answering a waiting WP did.
type Answered struct {
	Waiting WaitingWP
	// OffList is set when the choice is none of the options the session
	// offered: allowed (the supervisor decides), but worth saying.
	OffList bool
	// Recorded is false when the same answer was recorded before; then
	// nothing was written or sent.
	Recorded bool
	// Spec is the file the decision was appended to.
	Spec string
}

// Answer records the supervisor's choice for the question wp of p stopped
// on — a dated DECISION in the SPEC and its ledger event — and sends it to
// the WP's session through prompt. A WP that is not waiting, or has no
// session to send to, is refused with nothing written.
func Answer(p *plans.Project, l gitstore.Store, wp, choice string, prompt func(session, text string) error) (*Answered, error) {
	waiting, err := WaitingDecisions(l, p)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(waiting, func(w WaitingWP) bool { return w.WP == wp })
	if i < 0 {
		if _, err := p.WP(wp); err != nil {
			return nil, err
		}
		return nil, fault.Refusedf("%s is not waiting for a decision (its latest verification did not stop on a question)", wp)
	}
	a := &Answered{Waiting: waiting[i], Spec: filepath.Join(plans.Dir, p.Name, "SPEC.md")}
	w := a.Waiting
	if w.Session == "" {
		return nil, fault.Refusedf("%s has no session to send the answer to", w.WP)
	}
	a.OffList = len(w.Stop.Options) > 0 && !slices.Contains(w.Stop.Options, choice)
	text, recorded, err := plans.Answer(p, l, w.WP, w.Stop.Question, choice, time.Now())
	if err != nil || !recorded {
		return a, err
	}
	a.Recorded = true
	if err := prompt(w.Session, text); err != nil {
		return a, fmt.Errorf("the answer is recorded in %s, but sending it to session %s failed: %w (send it with git agentproto sessions prompt %s --text ...)",
			a.Spec, w.Session, err, w.Session)
	}
	return a, nil
}
