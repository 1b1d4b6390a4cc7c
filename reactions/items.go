package reactions

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plans"
)

// Item is something on the pull request that asks for a reaction.
type Item struct {
	Key     string
	Trigger string
	Check   *Check
	Comment *Comment
	Review  *Review
}

// items lists what asks for a reaction on the pull request at pr.Head:
// each failed check (by name), each reviewer's comment, each review
// asking for changes without a comment on a line, and the approval of a
// green head. Items already resolved are left out.
func (s *State) items(pr PRState) []Item {
	var out []Item
	checks := s.headChecks(pr.Head)
	green := len(checks) > 0
	for i := range checks {
		c := checks[i]
		if failedConclusions[c.Conclusion] {
			green = false
			if !s.dismissed("check:" + c.Name) {
				out = append(out, Item{Key: "check:" + c.Name, Trigger: config.CIFailed, Check: &c})
			}
		}
	}
	reviews := map[int64]Review{}
	latest := map[string]string{} // user -> latest review state
	for _, r := range s.Reviews {
		reviews[r.ID] = r
		if r.State == "APPROVED" || r.State == "CHANGES_REQUESTED" || r.State == "DISMISSED" {
			latest[r.User] = r.State
		}
	}
	withComments := map[int64]bool{}
	for i := range s.Comments {
		c := s.Comments[i]
		withComments[c.Review] = true
		key := commentItem(c.ID)
		if last, ok := s.Last(key); ok && last.Outcome == Pushed || s.dismissed(key) {
			continue // answered with a commit, or by the supervisor
		}
		trigger := config.Commented
		if reviews[c.Review].State == "CHANGES_REQUESTED" {
			trigger = config.ChangesRequested
		}
		out = append(out, Item{Key: key, Trigger: trigger, Comment: &c})
	}
	approved := false
	for _, r := range s.Reviews {
		state := latest[r.User]
		approved = approved || state == "APPROVED"
		if r.State != "CHANGES_REQUESTED" || withComments[r.ID] || state != "CHANGES_REQUESTED" || s.dismissed(reviewItem(r.ID)) {
			continue // answered by its comments, approved since, or dismissed
		}
		r := r
		out = append(out, Item{Key: reviewItem(r.ID), Trigger: config.ChangesRequested, Review: &r})
	}
	for _, state := range latest {
		if state == "CHANGES_REQUESTED" {
			approved = false
		}
	}
	if approved && green {
		out = append(out, Item{Key: "green:" + pr.Head, Trigger: config.ApprovedAndGreen})
	}
	return out
}

// route is where item goes under the plan's perimeters.
func (it Item) route(p *plans.Project) Route {
	switch {
	case it.Check != nil:
		return RouteCheck(p, *it.Check)
	case it.Comment != nil:
		return RouteComment(p, *it.Comment)
	case it.Review != nil:
		return Route{Escalate: fmt.Sprintf("review %d by %s asks for changes without naming a file", it.Review.ID, it.Review.User)}
	}
	return Route{}
}

// prompt is what item sends wp.
func (it Item) prompt(project string, number int, wp string, r Route) string {
	switch {
	case it.Check != nil:
		return checkPrompt(project, wp, number, *it.Check, r.Parts[wp])
	case it.Review != nil:
		return reviewPrompt(project, wp, number, *it.Review)
	}
	return commentPrompt(project, wp, number, *it.Comment)
}

// Pending is an item still open, as plan status and the MCP packet show
// it: who has it, the turns left before it escalates, or the escalation
// it waits on.
type Pending struct {
	Item        string   `json:"item"`
	Trigger     string   `json:"trigger"`
	WPs         []string `json:"wps,omitempty"`
	Attempts    int      `json:"attempts"`
	RetriesLeft int      `json:"retries_left"`
	Escalated   bool     `json:"escalated,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Tried       []string `json:"tried,omitempty"`
	Since       string   `json:"since,omitempty"`
}

// Describe says where p stands, on one line: the turns left, or the
// escalation it waits on with what was tried and how to answer it.
func (p Pending) Describe(project string) string {
	if !p.Escalated {
		s := fmt.Sprintf("%d retries left", p.RetriesLeft)
		if p.Reason != "" {
			s += "; " + p.Reason
		}
		return s
	}
	s := "waiting for the supervisor: " + p.Reason
	if len(p.Tried) > 0 {
		s += "; tried: " + strings.Join(p.Tried, "; ")
	}
	return s + fmt.Sprintf(" (git agentproto pr answer %s %s --choice retry|dismiss|WPn)", project, p.Item)
}

// pending lists the open items of pr.
func (s *State) pending(p *plans.Project, pr PRState, cfg config.Reactions) []Pending {
	out := []Pending{}
	for _, it := range s.items(pr) {
		act := s.reaction(cfg, it)
		if act.Action == config.Ignore || act.Action == config.Notify {
			continue
		}
		pd := Pending{Item: it.Key, Trigger: it.Trigger, Attempts: s.Attempts(it.Key), Tried: s.Tried(it.Key)}
		if t, ok := s.first[it.Key]; ok {
			pd.Since = t.UTC().Format(time.RFC3339)
		}
		pd.RetriesLeft = max(act.Retries-pd.Attempts, 0)
		r := s.route(it, p)
		pd.WPs = r.WPs()
		if e, ok := s.Escalated(it.Key); ok {
			pd.Escalated, pd.Reason, pd.RetriesLeft = true, e.Reason, 0
		} else if r.Escalate != "" {
			pd.Reason = r.Escalate
		}
		out = append(out, pd)
	}
	return out
}

// Status is where the plan's pull request stands by the ledger alone,
// asking GitHub nothing: its state as last polled, the items still open
// with who has them and the turns left, and those waiting for the
// supervisor. It is nil when no poll has seen the pull request yet.
func Status(l gitstore.Store, p *plans.Project, cfg config.Reactions) (*Report, error) {
	st, err := ReadState(l, p.Name)
	if err != nil || st.PR == nil {
		return nil, err
	}
	return &Report{Project: p.Name, PR: st.PR, Observed: []string{}, Reactions: []Reaction{}, Pending: st.pending(p, *st.PR, cfg),
		Done: st.PR.State != "open"}, nil
}
