package web

import (
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/reactions"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
)

// Facts are the ledger's events about one plan, decoded, in ledger order:
// what Build makes a page of. Reading them (Read) and drawing them (Build)
// are apart so that the page can be tested on facts made by hand.
type Facts struct {
	Project string
	History *plans.History
	// Shared are the plan's shared files, from the frozen plan.toml.
	Shared []string
	Events []Fact
	// Tip is the newest of Events.
	// Sessions are the lifecycle events of every session, by id; Build
	// keeps those of the plan's dispatches.
	Sessions map[string][]SessionEvent
	// Reactions is what pr watch recorded; PRStatus its pending items.
	Reactions *reactions.State
	PRStatus  *reactions.Report
	Tip       string
	Warnings  gitstore.Warnings
	// Spend is what the agents and the supervisor cost, every plan's.
	Spend *spend.Rollup
}

// Fact is one pipeline event of the plan: its envelope's time, id and
// attachments, and its data in the one field its kind fills.
type Fact struct {
	Time, ID, Kind string
	Attachments    []gitstore.Attachment

	Dispatch   *pipeline.Dispatch
	Verify     *pipeline.Verification
	Checkpoint *pipeline.Checkpoint
	Fallback   *pipeline.Fallback
	Accepted   *pipeline.OutsideAccepted
	Consol     *pipeline.Consolidation
	Review     *pipeline.ReviewResult
	E2E        *pipeline.E2EResult
	PR         *pipeline.PRResult
}

// SessionEvent is a session's lifecycle event as the daemon records it
// (session_<state>, session_diagnosed, session_wedged): the fields of its
// documented data the page shows. The daemon's own types are its alone.
type SessionEvent struct {
	Time     string `json:"-"`
	Kind     string `json:"-"`
	Session  string `json:"session"`
	Adapter  string `json:"adapter"`
	Model    string `json:"model"`
	Turn     int    `json:"turn"`
	Reason   string `json:"reason"`
	Fault    string `json:"fault"`
	Warning  string `json:"warning"`
	ExitCode *int   `json:"exit_code"`
	Symptom  string `json:"symptom"`
	Cause    string `json:"cause"`
}

// sessionKinds are the kinds of SessionEvent.
var sessionKinds = []string{
	"session_" + sessions.StateLaunched, "session_" + sessions.StateRunning, "session_" + sessions.StateSettled,
	"session_" + sessions.StateExited, "session_" + sessions.StateFailed, "session_" + sessions.StateCleaned,
	"session_diagnosed", "session_wedged",
}

// pipelineKinds are the kinds of Fact.
var pipelineKinds = []string{
	pipeline.KindDispatched, pipeline.KindVerified, pipeline.KindCheckpointed, pipeline.KindFallback,
	pipeline.KindOutsideAccepted, pipeline.KindConsolidated, pipeline.KindReviewed, pipeline.KindE2E, pipeline.KindPR,
}

// Read gathers project's facts from the ledger in one pass over the
// pipeline and session kinds, plus the plan's history and its pull
// request's reactions (read under cfg's retries). blob reads a git blob,
// the frozen plan.toml attachment for the shared files; nil skips them.
func Read(l gitstore.Store, project string, cfg config.Reactions, blob func(oid string) ([]byte, error)) (*Facts, error) {
	h, err := plans.ReadHistory(l, project)
	if err != nil {
		return nil, err
	}
	f := &Facts{Project: project, History: h, Sessions: map[string][]SessionEvent{}}
	kinds := append(append([]string{}, pipelineKinds...), sessionKinds...)
	for e, err := range l.Events(gitstore.Query{Kinds: kinds, Reverse: true, Warnings: &f.Warnings}) {
		if err != nil {
			return nil, err
		}
		if err := f.add(e); err != nil {
			f.Warnings = append(f.Warnings, "record "+e.ID+" ("+e.Kind+") was skipped: "+err.Error())
		}
	}
	if f.Reactions, err = reactions.ReadState(l, project); err != nil {
		return nil, err
	}
	var warn gitstore.Warnings
	if f.Spend, warn, err = spend.Read(l); err != nil {
		return nil, err
	}
	f.Warnings = append(f.Warnings, warn...)
	p := f.plan(l, blob)
	if f.PRStatus, err = reactions.Status(l, p, cfg); err != nil {
		return nil, err
	}
	return f, nil
}

// add decodes one event into f, through its kind, when it is about f's
// plan.
func (f *Facts) add(e *gitstore.Event) error {
	if strings.HasPrefix(e.Kind, "session_") {
		s, err := sessionKind(e.Kind).Decode(e)
		if err != nil {
			return err
		}
		s.Time, s.Kind = e.Time, e.Kind
		f.Sessions[s.Session] = append(f.Sessions[s.Session], s)
		return nil
	}
	v, ok, err := pipeline.DecodeEvent(e)
	if !ok || err != nil {
		return err
	}
	x := Fact{Time: e.Time, ID: e.ID, Kind: e.Kind, Attachments: e.Attachments}
	project := ""
	switch d := v.(type) {
	case *pipeline.Dispatch:
		x.Dispatch, project = d, d.Project
	case *pipeline.Verification:
		x.Verify, project = d, d.Project
	case *pipeline.Checkpoint:
		x.Checkpoint, project = d, d.Project
	case *pipeline.Fallback:
		x.Fallback, project = d, d.Project
	case *pipeline.OutsideAccepted:
		x.Accepted, project = d, d.Project
	case *pipeline.Consolidation:
		x.Consol, project = d, d.Project
	case *pipeline.ReviewResult:
		x.Review, project = d, d.Project
	case *pipeline.E2EResult:
		x.E2E, project = d, d.Project
	case *pipeline.PRResult:
		x.PR, project = d, d.Project
	}
	if project != f.Project {
		return nil
	}
	f.Events = append(f.Events, x)
	f.Tip = e.ID
	return nil
}

// sessionKind is a session lifecycle kind as this page reads it: the
// sessions daemon declares them, and only its serve command may link it,
// so the page sees their documented shape (SessionEvent).
func sessionKind(kind string) gitstore.Kind[SessionEvent] {
	return gitstore.Reading[SessionEvent](kind)
}

// plan is the plan as frozen, for routing the pull request's items: its
// work packages from the freeze, its shared files from the frozen
// plan.toml when it can be read.
func (f *Facts) plan(l gitstore.Store, blob func(string) ([]byte, error)) *plans.Project {
	p := &plans.Project{Name: f.Project, Plan: plans.Plan{Name: f.Project}}
	fr := f.History.Frozen
	if fr == nil {
		return p
	}
	p.Plan.Base, p.Plan.Gate, p.Plan.WPs = fr.Base, fr.Gate, fr.WPs
	if blob == nil {
		return p
	}
	e, _, err := l.Get(fr.RecordID)
	if err != nil {
		return p
	}
	for _, a := range e.Attachments {
		if a.Name != "plan.toml" {
			continue
		}
		if b, err := blob(a.OID); err == nil {
			var pl plans.Plan
			if _, err := toml.Decode(string(b), &pl); err == nil {
				p.Plan.Shared, f.Shared = pl.Shared, pl.Shared
			}
		}
	}
	return p
}
