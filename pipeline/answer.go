package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
)

// Answer is what answering a waiting WP did: the choice recorded in the
// SPEC and sent to the WP's session.
type Answer struct {
	Project  string `json:"project"`
	WP       string `json:"wp"`
	Session  string `json:"session"`
	Question string `json:"question"`
	Choice   string `json:"choice"`
	// Recorded is false when this very answer was already recorded; it
	// is then not sent again.
	Recorded bool `json:"recorded"`
	Sent     bool `json:"sent"`
	// OffOptions: the choice is none of the options the session offered.
	OffOptions bool `json:"off_options,omitempty"`
}

// AnswerDecision answers the question wp of p stopped on: the choice is
// recorded as a dated block in the SPEC (plans.Answer) and sent to the
// WP's live session, whose next turn end is verified as usual. A WP that
// is not waiting is refused and nothing is written.
func AnswerDecision(l gitstore.Store, p *plans.Project, c *sessions.Client, wp, choice string, now time.Time) (*Answer, error) {
	waiting, err := WaitingDecisions(l, p)
	if err != nil {
		return nil, err
	}
	var w *WaitingWP
	for i := range waiting {
		if waiting[i].WP == wp {
			w = &waiting[i]
		}
	}
	if w == nil {
		if _, err := p.WP(wp); err != nil {
			return nil, err
		}
		return nil, fault.Refusedf("%s is not waiting for a decision (its latest verification did not stop on a question)", wp)
	}
	if w.Session == "" {
		return nil, fault.Refusedf("%s has no session to send the answer to", w.WP)
	}
	a := &Answer{Project: p.Name, WP: w.WP, Session: w.Session, Question: w.Stop.Question, Choice: choice,
		OffOptions: len(w.Stop.Options) > 0 && !slices.Contains(w.Stop.Options, choice)}
	prompt, recorded, err := plans.Answer(p, l, w.WP, w.Stop.Question, choice, now)
	if err != nil {
		return nil, err
	}
	if a.Recorded = recorded; !recorded {
		return a, nil
	}
	if err := c.Prompt(context.Background(), w.Session, prompt, false); err != nil {
		return a, fmt.Errorf("the answer is recorded in %s, but sending it to session %s failed: %w (send it with git agentproto sessions prompt %s --text ...)",
			filepath.Join(plans.Dir, p.Name, "SPEC.md"), w.Session, err, w.Session)
	}
	a.Sent = true
	return a, nil
}

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
