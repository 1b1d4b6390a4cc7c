// Package watch is the supervisor's live view of a run: plans and their work
// packages, the sessions the daemon holds, the policies that fire, the peers
// and claims of a goal, and the selected session's output. It reads the same
// ledger projections and daemon records the commands print, and redraws only
// when they change: the ledger's refs move or the daemon rewrites a
// session's record, seen from a stamp of those files taken every PollEvery
// (feed.go says why files and not notifications) — never by re-running
// commands on a timer.
package watch

import (
	"bytes"
	"context"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
)

// WPRow is one work package of the watched plan.
type WPRow struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	State   string `json:"state"`   // planned, dispatched, verified, waiting_decision, failed, checkpointed
	Verdict string `json:"verdict"` // latest verify verdict, "" before any
	Session string `json:"session,omitempty"`
	// Checkpoint is the short commit of the WP's checkpoint.
	Checkpoint string `json:"checkpoint,omitempty"`
	// Spend is what the WP's sessions used, from the ledger's usage events
	// (a turn counts once it ended); nil before any.
	Spend *spend.Total `json:"spend,omitempty"`
}

// SessionRow is one session of the daemon.
type SessionRow struct {
	ID           string    `json:"id"`
	Label        string    `json:"label,omitempty"`
	Adapter      string    `json:"adapter"`
	State        string    `json:"state"`
	Turns        int       `json:"turns"`
	LastActivity time.Time `json:"last_activity"`
	Faults       []string  `json:"faults,omitempty"`
	Warnings     []string  `json:"warnings,omitempty"`
	// Sandbox is how the session is confined ("landlock", "none").
	Sandbox string `json:"sandbox,omitempty"`
	// Spend is the session's from its record, the running turn's latest
	// report included: live, where the ledger has ended turns only.
	Spend spend.Total `json:"spend"`
}

// PolicyRow is one policy attached in the daemon.
type PolicyRow struct {
	ID       string   `json:"id"`
	On       string   `json:"on"`
	Do       string   `json:"do"`
	Sessions []string `json:"sessions"`
	Fired    int      `json:"fired"`
	Active   bool     `json:"active"`
}

// PeerRow is one registered peer of the watched goal, with its claims.
type PeerRow struct {
	Agent  string   `json:"agent"`
	State  string   `json:"state"`
	Claims []string `json:"claims"` // todo (arbiter, lease end)
}

// Snapshot is everything the view shows at one moment.
type Snapshot struct {
	Project  string       `json:"project,omitempty"`
	Goal     string       `json:"goal,omitempty"`
	Pipeline []string     `json:"pipeline,omitempty"` // consolidated, reviewed, e2e, pr lines
	WPs      []WPRow      `json:"wps"`
	Sessions []SessionRow `json:"sessions"`
	Policies []PolicyRow  `json:"policies"`
	Peers    []PeerRow    `json:"peers"`
	// Spend is the watched plan's: executors by WP, the supervisor's own
	// reports, both together; nil before any usage was recorded for it.
	Spend *spend.Plan `json:"spend,omitempty"`
	// PR is the plan's pull request once a poll saw it (pr.go).
	PR *PRRow `json:"pull_request,omitempty"`
	// Problems are sources that could not be read: shown, never fatal,
	// so one unreadable part does not blank the whole view.
	Problems []string `json:"problems,omitempty"`
}

// Sources are where a snapshot is read from. Any may be nil.
type Sources struct {
	Ledger  *gitstore.Ledger
	Project *plans.Project
	Goal    string
	Store   *sessions.View
	Client  *sessions.Client
	// Reactions counts the pull request's retries left (nil: the
	// defaults).
	Reactions *config.Reactions
	// Mu, when set, is held while the ledger is read: actions that write it
	// run on other goroutines.
	Mu *sync.Mutex
}

// Take reads one snapshot.
func Take(src Sources) *Snapshot {
	s := &Snapshot{Goal: src.Goal, WPs: []WPRow{}, Sessions: []SessionRow{}, Policies: []PolicyRow{}, Peers: []PeerRow{}}
	problem := func(what string, err error) { s.Problems = append(s.Problems, what+": "+err.Error()) }
	if src.Mu != nil {
		src.Mu.Lock()
		defer src.Mu.Unlock()
	}
	if src.Project != nil && src.Ledger != nil {
		s.Project = src.Project.Name
		if st, err := pipeline.ReadState(src.Ledger, src.Project.Name); err != nil {
			problem("pipeline state", err)
		} else {
			s.WPs, s.Pipeline = wpRows(src.Project, st), pipelineLines(st)
		}
		if use, _, err := spend.Read(src.Ledger); err != nil {
			problem("spend", err)
		} else if s.Spend = use.Plan(src.Project.Name); s.Spend != nil {
			for i := range s.WPs {
				if t, ok := s.Spend.WPs[s.WPs[i].ID]; ok {
					s.WPs[i].Spend = &t
				}
			}
		}
		cfg := config.Default().Reactions
		if src.Reactions != nil {
			cfg = *src.Reactions
		}
		if pr, err := prRow(src.Ledger, src.Project, cfg); err != nil {
			problem("pull request", err)
		} else {
			s.PR = pr
		}
	}
	if src.Store != nil {
		if recs, err := src.Store.All(); err != nil {
			problem("sessions", err)
		} else {
			s.Sessions = sessionRows(recs)
		}
	}
	if src.Client != nil && src.Client.Running(context.Background()) {
		if policies, err := src.Client.Policies(context.Background()); err != nil {
			problem("policies", err)
		} else {
			s.Policies = policyRows(policies)
		}
	}
	if src.Goal != "" && src.Ledger != nil {
		if st, err := peers.Read(src.Ledger); err != nil {
			problem("peers", err)
		} else {
			s.Peers = peerRows(st, src.Goal, time.Now())
		}
	}
	return s
}

// wpRows are where the plan's work packages stand, as plan status says.
func wpRows(p *plans.Project, st *pipeline.State) []WPRow {
	states := st.WPStates(p)
	rows := make([]WPRow, len(states))
	for i, w := range states {
		rows[i] = WPRow{ID: w.ID, Title: w.Title, State: w.State, Verdict: w.Verdict, Session: w.Session, Checkpoint: w.Checkpoint}
	}
	return rows
}

func pipelineLines(st *pipeline.State) []string {
	var out []string
	if c := st.Consolidated; c != nil {
		out = append(out, "consolidated")
	}
	if r := st.Review; r != nil {
		out = append(out, "reviewed")
	}
	if r := st.E2E; r != nil {
		out = append(out, "e2e")
	}
	if r := st.PR; r != nil {
		out = append(out, "pr opened")
	}
	return out
}

func sessionRows(recs []*sessions.Record) []SessionRow {
	rows := make([]SessionRow, 0, len(recs))
	for _, r := range recs {
		if r.State == sessions.StateCleaned {
			continue
		}
		rows = append(rows, SessionRow{ID: r.ID, Label: r.Label, Adapter: r.Adapter, State: r.State, Turns: r.Turns,
			LastActivity: r.LastActivity, Faults: r.Faults, Warnings: r.Warnings, Sandbox: r.Sandbox, Spend: r.Spend})
	}
	// Live sessions first, then the most recently active.
	sort.SliceStable(rows, func(i, j int) bool {
		li, lj := !sessions.Terminal(rows[i].State), !sessions.Terminal(rows[j].State)
		if li != lj {
			return li
		}
		return rows[i].LastActivity.After(rows[j].LastActivity)
	})
	return rows
}

func policyRows(ps []*sessions.Policy) []PolicyRow {
	rows := make([]PolicyRow, 0, len(ps))
	for _, p := range ps {
		rows = append(rows, PolicyRow{ID: p.ID, On: p.On, Do: strings.Join(p.Do, ","), Sessions: p.Sessions, Fired: p.Fired, Active: !p.Canceled})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return rows
}

func peerRows(st *peers.State, goal string, now time.Time) []PeerRow {
	var rows []PeerRow
	for agent := range st.Peers {
		r := PeerRow{Agent: agent, State: "registered", Claims: []string{}}
		if s, ok := st.Status[goal][agent]; ok {
			r.State = s.State
		}
		for todo, c := range st.Claims[goal] {
			if c.Agent != agent {
				continue
			}
			arbiter := c.Arbiter
			if until, err := time.Parse(time.RFC3339, c.Until); err == nil && now.After(until) {
				arbiter = "expired"
			}
			r.Claims = append(r.Claims, todo+" ("+orDefault(arbiter, "local")+", until "+c.Until+")")
		}
		sort.Strings(r.Claims)
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Agent < rows[j].Agent })
	if rows == nil {
		rows = []PeerRow{}
	}
	return rows
}

// Tail returns the last n clean lines of a session's output.
func Tail(st *sessions.View, id string, n int) ([]string, error) {
	f, err := os.Open(st.OutputPath(id))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read at most the last 64 KiB: a tail of a long session costs the
	// same as one of a short one.
	const window = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		f.Seek(fi.Size()-window, 0)
	}
	raw, err := io.ReadAll(io.LimitReader(f, window))
	if err != nil {
		return nil, err
	}
	// Clean: the tail shows what an agent printed, never what it tried to
	// do to the terminal.
	b := sessions.CleanOutput(raw)
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(b, []byte("?"))), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
