package reactions

import (
	"time"

	"github.com/agentproto/agentproto/gitstore"
)

// State is what the ledger says of one plan's pull request after it was
// opened: the observations and the reactions, in ledger order.
type State struct {
	PR        *PRState
	Checks    []Check
	Reviews   []Review
	Comments  []Comment
	Reactions []Reaction
	// seen holds the ids of the recorded events: an observation seen
	// again (or edited on GitHub since) is not recorded twice.
	seen map[string]bool
	// first is when each item was first seen.
	first map[string]time.Time
	// reset is, for a check that passed again after it failed, the
	// number of reactions before it passed: a later failure is a new
	// incident, with its retries again and no standing escalation.
	reset map[string]int
}

// ReadState folds project's reactions events.
func ReadState(l gitstore.Store, project string) (*State, error) {
	st := &State{seen: map[string]bool{}, first: map[string]time.Time{}, reset: map[string]int{}}
	mark := func(st *State, e *gitstore.Event, item string) {
		st.seen[e.ID] = true
		if _, ok := st.first[item]; !ok && item != "" {
			if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
				st.first[item] = t
			}
		}
	}
	check := func(st *State, e *gitstore.Event, c Check) {
		if c.Project != project {
			return
		}
		key := "check:" + c.Name
		if !failedConclusions[c.Conclusion] {
			st.reset[key] = len(st.Reactions)
			delete(st.first, key)
		} else {
			mark(st, e, key)
		}
		st.seen[e.ID] = true
		st.Checks = append(st.Checks, c)
	}
	_, err := gitstore.Fold(l, st,
		gitstore.On(prStateKind, func(st *State, e *gitstore.Event, p PRState) {
			if p.Project == project {
				mark(st, e, "")
				st.PR = &p
			}
		}),
		gitstore.On(failedKind, check),
		gitstore.On(passedKind, check),
		gitstore.On(reviewKind, func(st *State, e *gitstore.Event, r Review) {
			if r.Project == project {
				mark(st, e, reviewItem(r.ID))
				st.Reviews = append(st.Reviews, r)
			}
		}),
		gitstore.On(commentKind, func(st *State, e *gitstore.Event, c Comment) {
			if c.Project == project {
				mark(st, e, commentItem(c.ID))
				st.Comments = append(st.Comments, c)
			}
		}),
		gitstore.On(reactionKind, func(st *State, e *gitstore.Event, r Reaction) {
			if r.Project != project {
				return
			}
			mark(st, e, r.Item)
			st.Reactions = append(st.Reactions, r)
			if r.Outcome == Answered && r.Answer != AnswerDismiss {
				// A new incident from the answer on: turns, retries and
				// escalate-after start over.
				st.reset[r.Item] = len(st.Reactions) - 1
				if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
					st.first[r.Item] = t
				}
			}
		}))
	return st, err
}

// Seen reports whether the event id is recorded.
func (s *State) Seen(id string) bool { return s.seen[id] }

// current are the reactions to item since it was last resolved.
func (s *State) current(item string) []Reaction {
	var out []Reaction
	for _, r := range s.Reactions[s.reset[item]:] {
		if r.Item == item {
			out = append(out, r)
		}
	}
	return out
}

// Attempts are the turns sent to the owners of item.
func (s *State) Attempts(item string) int {
	n := 0
	for _, r := range s.current(item) {
		if r.Item == item && r.Outcome == Sent {
			n++
		}
	}
	return n
}

// Last is the latest reaction to item with an outcome other than Sent.
func (s *State) Last(item string) (Reaction, bool) {
	rs := s.current(item)
	for i := len(rs) - 1; i >= 0; i-- {
		if r := rs[i]; r.Outcome != Sent {
			return r, true
		}
	}
	return Reaction{}, false
}

// Escalated is the escalation of item, if it was escalated.
func (s *State) Escalated(item string) (Reaction, bool) {
	for _, r := range s.current(item) {
		if r.Outcome == Escalated {
			return r, true
		}
	}
	return Reaction{}, false
}

// Tried lists what was done about item, for an escalation.
func (s *State) Tried(item string) []string {
	var out []string
	for _, r := range s.current(item) {
		if r.Outcome == Sent || r.Outcome == Escalated {
			continue // a turn is told by how it ended; an escalation is no try
		}
		if r.Outcome == Answered {
			out = append(out, describeAnswer(r))
			continue
		}
		t := r.Outcome
		if r.Step != "" {
			t += " at " + r.Step
		}
		if r.Commit != "" {
			t += " " + short(r.Commit)
		}
		if len(r.WPs) > 0 {
			t = r.WPs[0] + ": " + t
		}
		out = append(out, t)
	}
	return out
}

// headChecks are the latest result of each check on head, by name, in
// the order they were first seen.
func (s *State) headChecks(head string) []Check {
	var names []string
	latest := map[string]Check{}
	for _, c := range s.Checks {
		if c.Head != head {
			continue
		}
		if _, ok := latest[c.Name]; !ok {
			names = append(names, c.Name)
		}
		latest[c.Name] = c
	}
	out := make([]Check, 0, len(names))
	for _, n := range names {
		out = append(out, latest[n])
	}
	return out
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
