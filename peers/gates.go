package peers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// User gates are the open decisions of a goal that only the user can
// take: recorded as questions, closed with the user's answer. The
// supervisor sees the open ones in its packet and must not decide them.
const (
	KindGateOpened = "goal_gate_opened"
	KindGateClosed = "goal_gate_closed"
)

var (
	gateOpenedKind = gitstore.Declare[GateOpened](owner, KindGateOpened)
	gateClosedKind = gitstore.Declare[GateClosed](owner, KindGateClosed)
)

// GateOpened is the data of a goal_gate_opened event.
type GateOpened struct {
	Goal     string `json:"goal"`
	Gate     string `json:"gate"`
	Question string `json:"question"`
}

// GateClosed is the data of a goal_gate_closed event.
type GateClosed struct {
	Goal   string `json:"goal"`
	Gate   string `json:"gate"`
	Answer string `json:"answer"`
}

// Gate is one user gate as the ledger has it.
type Gate struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Opened   string `json:"opened"`
	Answer   string `json:"answer,omitempty"`
	Closed   string `json:"closed,omitempty"`
}

func init() {
	projection = append(projection,
		gitstore.On(gateOpenedKind, func(st *State, e *gitstore.Event, d GateOpened) {
			if st.Gates == nil {
				st.Gates = map[string]map[string]*Gate{}
			}
			if st.Gates[d.Goal] == nil {
				st.Gates[d.Goal] = map[string]*Gate{}
			}
			st.Gates[d.Goal][d.Gate] = &Gate{ID: d.Gate, Question: d.Question, Opened: e.Time}
		}),
		gitstore.On(gateClosedKind, func(st *State, e *gitstore.Event, d GateClosed) {
			if g := st.Gates[d.Goal][d.Gate]; g != nil {
				g.Answer, g.Closed = d.Answer, e.Time
			}
		}))
}

// OpenGates are a goal's gates without an answer, oldest first.
func (st *State) OpenGates(goal string) []Gate {
	out := []Gate{}
	for _, g := range st.Gates[goal] {
		if g.Closed == "" {
			out = append(out, *g)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Opened != out[j].Opened {
			return out[i].Opened < out[j].Opened
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// AddGate records a user gate of a goal: a question only the user answers.
func (s *Service) AddGate(goalID, gate, question string) (bool, error) {
	st, err := s.state()
	if err != nil {
		return false, err
	}
	if _, err := s.goal(st, goalID); err != nil {
		return false, err
	}
	if err := ValidateName("gate id", gate); err != nil {
		return false, err
	}
	if strings.TrimSpace(question) == "" {
		return false, fault.Invalidf("--question is required")
	}
	if err := texts(map[string]string{"--question": question}); err != nil {
		return false, err
	}
	if g := st.Gates[goalID][gate]; g != nil && g.Question != question {
		return false, fault.Conflictf("gate %s of goal %s exists with another question", gate, goalID)
	}
	return record(s, gateOpenedKind, "goal/"+goalID+"/gate/"+gate, GateOpened{Goal: goalID, Gate: gate, Question: question})
}

// CloseGate records the user's answer to an open gate.
func (s *Service) CloseGate(goalID, gate, answer string) (bool, error) {
	st, err := s.state()
	if err != nil {
		return false, err
	}
	if _, err := s.goal(st, goalID); err != nil {
		return false, err
	}
	if err := ValidateName("gate id", gate); err != nil {
		return false, err
	}
	g := st.Gates[goalID][gate]
	if g == nil {
		return false, fault.Invalidf("goal %s has no gate %q (git agentproto goal gate add)", goalID, gate)
	}
	if strings.TrimSpace(answer) == "" {
		return false, fault.Invalidf("--answer is required: the user's decision")
	}
	if err := texts(map[string]string{"--answer": answer}); err != nil {
		return false, err
	}
	if g.Closed != "" && g.Answer != answer {
		return false, fault.Conflictf("gate %s of goal %s is closed already, with another answer", gate, goalID)
	}
	return record(s, gateClosedKind, fmt.Sprintf("goal/%s/gate/%s/closed", goalID, gate), GateClosed{Goal: goalID, Gate: gate, Answer: answer})
}

// addWaiting puts what waits for the supervisor in the packet: the plans'
// waiting decisions and their pull requests, escalations included. A plan whose
// plan.toml does not load (one being written) is a warning; a ledger that
// cannot be read makes the packet incomplete.
func (s *Service) addWaiting(o *Observation) {
	fill := func(dst *any, list func() (any, []error, error), what string) {
		*dst = []any{}
		if list == nil {
			return
		}
		items, problems, err := list()
		if err != nil {
			o.Warnings = append(o.Warnings, what+" could not be read: "+err.Error())
			o.DecisionInputComplete = false
			return
		}
		*dst = items
		for _, p := range problems {
			o.Warnings = append(o.Warnings, "a plan's "+what+" could not be read: "+p.Error())
		}
	}
	fill(&o.WaitingDecisions, s.Waiting, "waiting decisions")
	fill(&o.PullRequests, s.PullRequests, "pull requests")
}
