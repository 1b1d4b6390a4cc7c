package reactions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
)

// The supervisor's answers to an escalated item, besides a work package
// id (which sends the item to that WP: the answer to an ambiguous route).
const (
	// AnswerRetry gives the item's owners their turns again, as a new
	// incident: retries and escalate-after start over.
	AnswerRetry = "retry"
	// AnswerDismiss closes the item: a person handled it, or decided it
	// needs nothing. The watcher does not react to it again.
	AnswerDismiss = "dismiss"
)

// Answered is the outcome of the supervisor's answer to an escalation.
const Answered = "answered"

// AnswerResult is what answering an escalated item did.
type AnswerResult struct {
	Project string `json:"project"`
	Number  int    `json:"number"`
	Item    string `json:"item"`
	Choice  string `json:"choice"`
	// WPs are who get the item's next turn ("dismiss": none).
	WPs []string `json:"wps"`
	// Recorded is false when this very answer was recorded already:
	// nothing was written.
	Recorded bool `json:"recorded"`
	// Tried is what had been done about the item before the answer.
	Tried []string `json:"tried"`
}

// Answer records the supervisor's answer to an item of p's pull request
// that waits for it: retry (its owners get new turns), dismiss (nothing
// more is done about it), or a work package id (that WP gets it, the
// answer to an item no single WP owns). The next poll — pr watch, or the
// daemon's — acts on it. An item that is not escalated is refused and
// nothing is written; the same answer given twice is recorded once.
func Answer(l gitstore.Store, p *plans.Project, cfg config.Reactions, item, choice, note string) (*AnswerResult, error) {
	st, err := ReadState(l, p.Name)
	if err != nil {
		return nil, err
	}
	if st.PR == nil {
		return nil, fault.Refusedf("plan %s's pull request has not been polled yet: nothing waits for an answer (git agentproto pr watch %s)", p.Name, p.Name)
	}
	if st.PR.State != "open" {
		return nil, fault.Refusedf("pull request #%d is %s: nothing more is done about it", st.PR.Number, st.PR.State)
	}
	if choice != AnswerRetry && choice != AnswerDismiss {
		if _, err := p.WP(choice); err != nil {
			return nil, fault.Invalidf("--choice takes retry, dismiss or a work package of plan %s, not %q", p.Name, choice)
		}
	}
	note = bound(strings.TrimSpace(note), 1<<10)
	res := &AnswerResult{Project: p.Name, Number: st.PR.Number, Item: item, Choice: choice, WPs: []string{}, Tried: st.Tried(item)}
	items := st.items(*st.PR)
	i := slices.IndexFunc(items, func(it Item) bool { return it.Key == item })
	_, escalated := st.Escalated(item)
	if i < 0 || !escalated {
		// A dismissed item is no longer listed; a retried one is no
		// longer escalated. The same answer again is no error.
		if last, ok := st.lastAnswer(item); ok && last.Answer == choice && last.Reason == note {
			res.WPs = append(res.WPs, last.WPs...)
			return res, nil
		}
		return nil, fault.Refusedf("%s is not waiting for the supervisor on pull request #%d (see git agentproto plan status %s)", item, st.PR.Number, p.Name)
	}
	it := items[i]
	switch choice {
	case AnswerDismiss:
	case AnswerRetry:
		r := st.route(it, p)
		if r.Escalate != "" {
			return nil, fault.Refusedf("%s has no owner to retry: %s; name the work package that takes it: --choice WPn", item, r.Escalate)
		}
		res.WPs = r.WPs()
	default:
		res.WPs = []string{choice}
	}
	a := Reaction{Project: p.Name, Number: st.PR.Number, Item: item, Trigger: it.Trigger, Action: "answer", Head: st.PR.Head,
		Outcome: Answered, Answer: choice, Reason: note, Tried: res.Tried}
	if choice != AnswerRetry && choice != AnswerDismiss {
		a.WPs = res.WPs
	}
	// One answer per escalation: its id names the incident it answers.
	id := obsID(p.Name, st.PR.Number, "answer/%s/%d", item, st.reset[item])
	if _, err := reactionKind.Record(l, id, a); err != nil {
		return nil, fmt.Errorf("recording the answer to %s: %w", item, err)
	}
	res.Recorded = true
	return res, nil
}

// lastAnswer is the supervisor's latest answer to item in its current
// incident.
func (s *State) lastAnswer(item string) (Reaction, bool) {
	rs := s.current(item)
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Outcome == Answered {
			return rs[i], true
		}
	}
	return Reaction{}, false
}

// dismissed: the supervisor closed item.
func (s *State) dismissed(item string) bool {
	a, ok := s.lastAnswer(item)
	return ok && a.Answer == AnswerDismiss
}

// route is where item goes: the work package the supervisor named for it,
// else by the plan's perimeters.
func (s *State) route(it Item, p *plans.Project) Route {
	if a, ok := s.lastAnswer(it.Key); ok && len(a.WPs) > 0 {
		r := Route{Parts: map[string][]Note{}}
		for _, wp := range a.WPs {
			if it.Check != nil {
				r.Parts[wp] = it.Check.Notes
			} else {
				r.Parts[wp] = nil
			}
		}
		return r
	}
	return it.route(p)
}

// describeAnswer is an answer as Tried lists it.
func describeAnswer(r Reaction) string {
	t := "the supervisor answered " + r.Answer
	if r.Reason != "" {
		t += " (" + strings.TrimSpace(r.Reason) + ")"
	}
	return t
}

// reaction is what cfg says item gets, unless the supervisor answered it:
// an item they sent back to work gets at least one turn, even where
// [reactions] escalates it at once.
func (s *State) reaction(cfg config.Reactions, it Item) config.Reaction {
	act := cfg.For(it.Trigger)
	if _, ok := s.lastAnswer(it.Key); ok {
		act.Action, act.Retries = config.SendToOwner, max(act.Retries, 1)
	}
	return act
}
