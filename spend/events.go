package spend

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
)

// Ledger kinds of spend. The sessions daemon records one usage_turn per
// turn of every session (an unknown turn too); a supervisor reports its
// own spend as usage_supervisor, so that a plan's total is whole.
const (
	KindTurn       = "usage_turn"
	KindSupervisor = "usage_supervisor"
)

var (
	owner          = gitstore.NewOwner("spend")
	turnKind       = gitstore.Declare[TurnEvent](owner, KindTurn)
	supervisorKind = gitstore.Declare[SupervisorEvent](owner, KindSupervisor)
)

// TurnEvent is the data of a usage_turn event.
type TurnEvent struct {
	Session string `json:"session"`
	Label   string `json:"label,omitempty"`
	Adapter string `json:"adapter"`
	Profile string `json:"profile,omitempty"`
	Turn
	// Stopped is the cap the daemon stopped the session at, after this
	// turn's usage reached it.
	Stopped *Exhausted `json:"stopped,omitempty"`
}

// RecordTurn appends the usage of one turn. The id is the session and
// the turn: recording the same turn again with the same data is a no-op.
func RecordTurn(s gitstore.Store, e TurnEvent) error {
	_, err := turnKind.Record(s, turnID(e), e)
	return err
}

// TurnDraft is the usage of one turn as a draft, for a batch of events
// (the sessions daemon's journal); same id and data as RecordTurn.
func TurnDraft(e TurnEvent) (gitstore.Draft, error) {
	return turnKind.Draft(turnID(e), e)
}

func turnID(e TurnEvent) string { return fmt.Sprintf("usage/%s/%d", e.Session, e.Turn.Turn) }

// SupervisorEvent is the data of a usage_supervisor event: what the LLM
// driving agentproto (through MCP or the CLI) says it used, for a plan.
type SupervisorEvent struct {
	Plan string `json:"plan"`
	// ID names the report, so that sending it again is a no-op.
	ID string `json:"id"`
	Turn
	Note string `json:"note,omitempty"`
}

// RecordSupervisor appends a supervisor's report of its own spend, dated
// by its event.
func RecordSupervisor(s gitstore.Store, e SupervisorEvent) (*gitstore.AppendResult, error) {
	if e.Plan == "" || e.ID == "" {
		return nil, fmt.Errorf("a supervisor's spend names its plan and the report's id")
	}
	// The event's own time dates it: a report sent again is the same
	// record, whenever it is sent.
	e.At = time.Time{}
	return supervisorKind.Record(s, fmt.Sprintf("usage/supervisor/%s/%s", e.Plan, e.ID), e)
}

// Rollup is spend summed per session, work package, plan and day, from
// the ledger. Supervisor spend counts in its plan and day, and apart in
// Supervisor; a plan's entry is executors and supervisor together.
type Rollup struct {
	Sessions   map[string]Total `json:"sessions,omitempty"`
	WPs        map[string]Total `json:"wps,omitempty"`   // "plan/WP"
	Plans      map[string]Total `json:"plans,omitempty"` // executors + supervisor
	Supervisor map[string]Total `json:"supervisor,omitempty"`
	Days       map[string]Total `json:"days,omitempty"` // UTC
	All        Total            `json:"all"`
}

// NewRollup is an empty roll-up.
func NewRollup() *Rollup {
	return &Rollup{Sessions: map[string]Total{}, WPs: map[string]Total{}, Plans: map[string]Total{},
		Supervisor: map[string]Total{}, Days: map[string]Total{}}
}

// AddTurn counts one turn of a session labelled label.
func (r *Rollup) AddTurn(session, label string, t Turn) {
	add(r.Sessions, session, t)
	if wp := WPOf(label); wp != "" {
		add(r.WPs, wp, t)
		add(r.Plans, PlanOf(label), t)
	}
	add(r.Days, Day(t.At), t)
	r.All.Add(t)
}

// AddSupervisor counts one supervisor report.
func (r *Rollup) AddSupervisor(plan string, t Turn) {
	add(r.Supervisor, plan, t)
	add(r.Plans, plan, t)
	add(r.Days, Day(t.At), t)
	r.All.Add(t)
}

func add(m map[string]Total, k string, t Turn) {
	v := m[k]
	v.Add(t)
	m[k] = v
}

// Read folds the ledger's usage events into a roll-up.
func Read(s gitstore.Store) (*Rollup, gitstore.Warnings, error) {
	r := NewRollup()
	warn, err := gitstore.Fold(s, r,
		gitstore.On(turnKind, func(r *Rollup, _ *gitstore.Event, e TurnEvent) { r.AddTurn(e.Session, e.Label, e.Turn) }),
		gitstore.On(supervisorKind, addSupervisor))
	return r, warn, err
}

// ReadSupervisor folds the supervisors' reports alone: the part of a
// plan's and a day's spend that no session's record holds, which the
// sessions daemon adds to its own book for the plan and day budgets.
func ReadSupervisor(s gitstore.Store) (*Rollup, gitstore.Warnings, error) {
	r := NewRollup()
	warn, err := gitstore.Fold(s, r, gitstore.On(supervisorKind, addSupervisor))
	return r, warn, err
}

// addSupervisor counts a report on the day of its event.
func addSupervisor(r *Rollup, ev *gitstore.Event, e SupervisorEvent) {
	if e.At.IsZero() {
		e.At, _ = time.Parse(time.RFC3339Nano, ev.Time)
	}
	r.AddSupervisor(e.Plan, e.Turn)
}

// Plan is one plan's spend: its executors' sessions by work package, the
// supervisor's own reports, and both together.
type Plan struct {
	Total      Total            `json:"total"`
	Executors  Total            `json:"executors"`
	Supervisor Total            `json:"supervisor"`
	WPs        map[string]Total `json:"wps,omitempty"` // by WP id
}

// Plan is the spend of plan, nil when nothing was recorded for it.
func (r *Rollup) Plan(plan string) *Plan {
	total, ok := r.Plans[plan]
	if !ok {
		return nil
	}
	p := &Plan{Total: total, Supervisor: r.Supervisor[plan], WPs: map[string]Total{}}
	for label, t := range r.WPs {
		if PlanOf(label) == plan {
			_, wp, _ := strings.Cut(label, "/")
			p.WPs[wp] = t
			p.Executors.Merge(t)
		}
	}
	return p
}
