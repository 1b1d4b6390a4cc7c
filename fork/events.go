// Package fork is the fork extension of the peer supervisor protocol: a
// temporary execution branch forked from a peer's immutable state and
// leased to another idle, capability-matched registered peer, while the
// source keeps running. Admission proves each capability the protocol
// names or fails closed; every step is a ledger event; the branch's
// result is held on its own ref until it is selected or discarded.
package fork

import (
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
)

// Event kinds of a branch's lifecycle.
const (
	KindProposed  = "fork_proposed"
	KindAdmitted  = "fork_admitted"
	KindLeased    = "fork_leased"
	KindRunning   = "fork_running"
	KindHeld      = "fork_held_result"
	KindFailed    = "fork_failed"
	KindExpired   = "fork_expired"
	KindSelected  = "fork_selected"
	KindDiscarded = "fork_discarded"
)

// States of a branch: proposal_only → admitted → leased → running →
// held_result | failed | expired, then held_result → selected | discarded.
const (
	StateProposalOnly = "proposal_only"
	StateAdmitted     = "admitted"
	StateLeased       = "leased"
	StateRunning      = "running"
	StateHeld         = "held_result"
	StateFailed       = "failed"
	StateExpired      = "expired"
	StateSelected     = "selected"
	StateDiscarded    = "discarded"
)

var stateOf = map[string]string{
	KindProposed: StateProposalOnly, KindAdmitted: StateAdmitted, KindLeased: StateLeased,
	KindRunning: StateRunning, KindHeld: StateHeld, KindFailed: StateFailed, KindExpired: StateExpired,
	KindSelected: StateSelected, KindDiscarded: StateDiscarded,
}

// owner records the fork kinds; no other package can.
var owner = gitstore.NewOwner("fork")

var (
	proposedKind = gitstore.Declare[Admission](owner, KindProposed)
	admittedKind = gitstore.Declare[Admission](owner, KindAdmitted)
	stepKinds    = map[string]gitstore.Kind[Step]{}
)

func init() {
	for _, k := range []string{KindLeased, KindRunning, KindHeld, KindFailed, KindExpired, KindSelected, KindDiscarded} {
		stepKinds[k] = gitstore.Declare[Step](owner, k)
	}
}

var kinds = []string{KindProposed, KindAdmitted, KindLeased, KindRunning, KindHeld, KindFailed,
	KindExpired, KindSelected, KindDiscarded}

// Proof is how admission proved one capability.
type Proof struct {
	Capability string `json:"capability"`
	Evidence   string `json:"evidence"`
}

// Capacity is the reservation an admission holds.
type Capacity struct {
	Max    int `json:"max_branches"`
	Active int `json:"active"`
}

// Admission is what a proposal and an admission record: the four
// identities kept apart, the proofs, and what the branch is asked to do.
type Admission struct {
	BranchID          string   `json:"execution_branch_id"`
	Mode              string   `json:"mode"`
	DryRun            bool     `json:"dry_run"`
	SourceAgent       string   `json:"source_agent_id"`
	SourceWorktree    string   `json:"source_worktree"`
	SourceStateRef    string   `json:"source_state_ref"`
	SourceStateCommit string   `json:"source_state_commit"`
	SourceSession     string   `json:"source_session"`
	ResumeRef         string   `json:"session_resume_ref"`
	ExecutorAgent     string   `json:"executor_agent_id"`
	ExecutorAdapter   string   `json:"executor_adapter"`
	BranchLeaseID     string   `json:"branch_lease_id"`
	LeaseSeconds      int      `json:"lease_seconds"`
	AuthorityRef      string   `json:"authority_ref"`
	Task              string   `json:"task"`
	Worktree          string   `json:"worktree"`
	ResultRef         string   `json:"result_ref"`
	Capacity          Capacity `json:"capacity"`
	Proofs            []Proof  `json:"proofs"`
	EvidenceRefs      []string `json:"evidence_refs"`
}

// Step is the payload of every later lifecycle event.
type Step struct {
	BranchID     string   `json:"execution_branch_id"`
	LeaseID      string   `json:"branch_lease_id,omitempty"`
	Executor     string   `json:"executor_agent_id,omitempty"`
	LeaseUntil   string   `json:"lease_until,omitempty"`
	Worktree     string   `json:"worktree,omitempty"`
	Session      string   `json:"session,omitempty"`
	ResultRef    string   `json:"result_ref,omitempty"`
	ResultCommit string   `json:"result_commit,omitempty"`
	Changed      []string `json:"changed_paths,omitempty"`
	Stage        string   `json:"stage,omitempty"`
	Cause        string   `json:"cause,omitempty"`
	Reason       string   `json:"reason,omitempty"`
	EvidenceRefs []string `json:"evidence_refs,omitempty"`
}

// Branch is the projection of one execution branch.
type Branch struct {
	Admission
	State    string   `json:"state"`
	History  []string `json:"history"` // "state@time", oldest first
	LeaseEnd string   `json:"lease_until,omitempty"`
	Session  string   `json:"session,omitempty"`
	Outcome  *Step    `json:"outcome,omitempty"`
	Settled  *Step    `json:"settlement,omitempty"`
	// LeaseEnded is set by a read when the branch still executes in the
	// ledger but its lease is over: the next fork command that writes
	// records it expired (Reconcile); a read says so meanwhile.
	LeaseEnded bool `json:"lease_ended,omitempty"`
}

// markLeaseEnded sets LeaseEnded on the executing branches of bs whose
// lease ended before now.
func markLeaseEnded(now time.Time, bs ...*Branch) {
	for _, b := range bs {
		if !b.Executing() || b.LeaseEnd == "" {
			continue
		}
		if until, err := time.Parse(time.RFC3339, b.LeaseEnd); err == nil && !now.Before(until) {
			b.LeaseEnded = true
		}
	}
}

// Live reports whether the branch still holds capacity or a lease: it is
// between admission and settlement.
func (b *Branch) Live() bool {
	switch b.State {
	case StateAdmitted, StateLeased, StateRunning, StateHeld:
		return true
	}
	return false
}

// Executing reports whether the branch is between admission and its
// outcome, the part a lease bounds.
func (b *Branch) Executing() bool {
	return b.State == StateAdmitted || b.State == StateLeased || b.State == StateRunning
}

// since returns when the branch entered state.
func (b *Branch) since(state string) (time.Time, bool) {
	for _, h := range b.History {
		if st, at, ok := strings.Cut(h, "@"); ok && st == state {
			t, err := time.Parse(time.RFC3339Nano, at)
			return t, err == nil
		}
	}
	return time.Time{}, false
}

// Read projects every fork event of the ledger, by branch id.
func Read(l *gitstore.Ledger) (map[string]*Branch, error) {
	out := map[string]*Branch{}
	err := l.Each(gitstore.Query{Kinds: kinds, Reverse: true}, func(e *gitstore.Event) error {
		if e.Kind == KindProposed || e.Kind == KindAdmitted {
			k := proposedKind
			if e.Kind == KindAdmitted {
				k = admittedKind
			}
			a, err := k.Decode(e)
			if err != nil || a.BranchID == "" {
				return nil
			}
			b := out[a.BranchID]
			if b == nil || (b.State == StateProposalOnly && b.DryRun) {
				b = &Branch{History: []string{}}
				if old := out[a.BranchID]; old != nil {
					b.History = old.History
				}
				out[a.BranchID] = b
			}
			b.Admission = a
			b.State = stateOf[e.Kind]
			b.History = append(b.History, b.State+"@"+e.Time)
			return nil
		}
		s, err := stepKinds[e.Kind].Decode(e)
		if err != nil || out[s.BranchID] == nil {
			return nil
		}
		b := out[s.BranchID]
		b.State = stateOf[e.Kind]
		b.History = append(b.History, b.State+"@"+e.Time)
		if s.LeaseUntil != "" {
			b.LeaseEnd = s.LeaseUntil
		}
		if s.Session != "" {
			b.Session = s.Session
		}
		if s.Executor != "" {
			b.ExecutorAgent = s.Executor
		}
		switch e.Kind {
		case KindHeld, KindFailed, KindExpired:
			c := s
			b.Outcome = &c
		case KindSelected, KindDiscarded:
			c := s
			b.Settled = &c
		}
		return nil
	})
	return out, err
}

// Sorted lists branches by id.
func Sorted(m map[string]*Branch) []*Branch {
	out := make([]*Branch, 0, len(m))
	for _, b := range m {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].BranchID < out[j].BranchID })
	return out
}

// Record ids: one per step, and one outcome and one settlement per
// branch, so two processes can never record two outcomes (the second is a
// conflict).
func recordID(branch, step string) string { return "fork/" + branch + "/" + step }
