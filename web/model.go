// Package web is the human reviewer's page of one plan: the evidence for
// every work package (perimeter, sessions and turns, diff, verify verdict
// with the gate's log, review findings, outside changes accepted, the pull
// request and its checks) and a queue of what needs a person first, each
// item with the command that acts on it. The page is built from the
// ledger alone (and the git objects its events name), rendered with
// html/template so that everything an agent wrote is escaped, served on
// loopback behind a random token with live updates over server-sent
// events, or exported as one self-contained file.
package web

import (
	"strings"

	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/reactions"
	"github.com/agentproto/agentproto/spend"
)

// Page is the view model of one plan: what the template draws.
type Page struct {
	Project string
	// Frozen is false for a plan never frozen: nothing else is known.
	Frozen     bool
	FrozenAt   string
	Base       string
	BaseCommit string
	Gate       string
	Shared     []string
	// Events is how many ledger events of the plan (and of its WPs'
	// sessions) the page was built from; Tip names the plan's newest.
	Events int
	Tip    string
	// Built is when the page was built (UTC, RFC 3339).
	Built string

	Queue    []QueueItem
	WPs      []*WPView
	Timeline []Entry
	// Earlier are the timeline's entries before the newest shown ones:
	// on the page behind a closed disclosure, so that a long run costs
	// its first paint little.
	Earlier []Entry
	Review  *pipeline.ReviewResult
	Consol  *pipeline.Consolidation
	E2E     *pipeline.E2EResult
	PR      *PRView
	// Cost is nil while the ledger records no usage (see Cost).
	Cost *Cost
	// Warnings are what reading the ledger met.
	Warnings []string
}

// WPView is one work package with its evidence.
type WPView struct {
	ID        string
	Title     string
	Cost      string // what its sessions cost, "" when nothing was recorded
	Owns      []string
	Reads     []string
	DependsOn []string
	// Status is one word: not-dispatched, dispatched, pass, fail,
	// waiting_decision, checkpointed.
	Status     string
	Dispatches []pipeline.Dispatch
	Sessions   []*SessionView
	Fallbacks  []pipeline.Fallback
	Verify     *pipeline.Verification
	// GateLog is the tail of the verification's gate.log.
	GateLog string
	// GateLogCut is how many leading bytes of the log were left out.
	GateLogCut int
	Diff       *Diff
	Checkpoint *pipeline.Checkpoint
	Accepted   []pipeline.OutsideAccepted
	Findings   []judge.Finding // review findings on this WP
}

// SessionView is one executor session of a WP as the ledger tells it.
type SessionView struct {
	ID      string
	Adapter string
	Model   string
	State   string
	Turns   int
	Faults  []string
	Reason  string
}

// Diff is what a verified state changed against its base.
type Diff struct {
	Base, Tree string
	Files      []FileStat
	Added      int
	Deleted    int
	// Text is the unified diff, bounded; Cut says it was bounded.
	Text string
	Cut  bool
	// Err says why the diff could not be read (objects not in this clone).
	Err string
}

// FileStat is one changed file's line counts; Binary when git has none.
type FileStat struct {
	Path           string
	Added, Deleted int
	Binary         bool
}

// PRView is the pull request and what reactions observed on it.
type PRView struct {
	Opened   *pipeline.PRResult
	State    *reactions.PRState
	Checks   []reactions.Check
	Reviews  []reactions.Review
	Comments []reactions.Comment
	Pending  []reactions.Pending
}

// Entry is one line of the timeline.
type Entry struct {
	Time string
	// Wave is the wave a dispatch belongs to (1, 2, ...), 0 for others.
	Wave int
	WP   string
	What string // dispatch, turn, fault, fallback, verify, ...
	Text string
	// Tone is ok, bad, warn or "" for the badge's colour.
	Tone string
}

// Ranks of the queue, most urgent first.
const (
	RankTampered = iota + 1
	RankFailed
	RankErrorFinding
	RankEscalated
	RankDecision
	RankUntested
	RankWiring
	RankOutside
	RankWarning
	RankNext
)

// QueueItem is one thing that needs a person, with what acts on it.
type QueueItem struct {
	Rank    int
	Kind    string // tampered, failed, finding, escalated, ...
	WP      string
	Title   string
	Detail  string
	Command string
	// Anchor is the id of the section that holds the evidence.
	Anchor string
}

// Cost is what a plan cost, from the usage the sessions daemon and the
// supervisor recorded (spend.Read), as spend prints it: tokens and dollars,
// turns whose agent reported nothing counted apart.
type Cost struct {
	Total string
	ByWP  map[string]string
}

// costOf is the plan's cost in r, nil when nothing was recorded for it.
func costOf(r *spend.Rollup, plan string) *Cost {
	if r == nil {
		return nil
	}
	total, ok := r.Plans[plan]
	if !ok {
		return nil
	}
	c := &Cost{Total: total.String(), ByWP: map[string]string{}}
	for key, t := range r.WPs {
		if p, wp, ok := strings.Cut(key, "/"); ok && p == plan {
			c.ByWP[wp] = t.String()
		}
	}
	return c
}

// CostOf is the cost of wp, or "" when none is recorded.
func (c *Cost) CostOf(wp string) string {
	if c == nil {
		return ""
	}
	return c.ByWP[wp]
}
