package peers

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

// ClaimLost records a claim the arbiter gave to another clone.
type ClaimLost struct {
	Goal         string `json:"goal"`
	Todo         string `json:"todo"`
	Agent        string `json:"agent"`
	Remote       string `json:"remote"`
	Holder       string `json:"holder"`
	HolderWriter string `json:"holder_writer"`
	HolderUntil  string `json:"holder_until"`
	Time         string `json:"time,omitempty"`
}

// Arbiter states of a claim in the observation packet.
const (
	StateRemoteHeld = "remote-held"
	StateLocalOnly  = "local-only"
	StateExpired    = "expired"
	StateContested  = "contested"
)

// hold adds a claim to the todo's holders. A remote claim supersedes every
// other remote one: the remote let it through, so they ended.
func (st *State) hold(c Claim) {
	if st.Holders[c.Goal] == nil {
		st.Holders[c.Goal] = map[string]map[string]Claim{}
	}
	h := st.Holders[c.Goal][c.Todo]
	if h == nil {
		h = map[string]Claim{}
		st.Holders[c.Goal][c.Todo] = h
	}
	if c.Arbiter == ArbiterRemote {
		for a, o := range h {
			if o.Arbiter == ArbiterRemote {
				delete(h, a)
			}
		}
	}
	h[c.Agent] = c
}

// ArbiterState says how far a claim holds: expired, contested (another
// agent holds a live claim on the same todo, which only a local claim
// allows), remote-held or local-only.
func (st *State) ArbiterState(c Claim, now time.Time) string {
	if until, err := time.Parse(time.RFC3339, c.Until); err == nil && now.After(until) {
		return StateExpired
	}
	for a, o := range st.Holders[c.Goal][c.Todo] {
		if a == c.Agent {
			continue
		}
		if until, err := time.Parse(time.RFC3339, o.Until); err == nil && !now.After(until) {
			return StateContested
		}
	}
	if c.Arbiter == ArbiterRemote {
		return StateRemoteHeld
	}
	return StateLocalOnly
}

// leaseEnd is now+lease rounded up to the second the record can say: a
// lease is never shorter than asked.
func leaseEnd(now time.Time, lease time.Duration) string {
	end := now.Add(lease)
	if t := end.Truncate(time.Second); t.Before(end) {
		end = t.Add(time.Second)
	}
	return end.UTC().Format(time.RFC3339)
}

func live(r *ClaimRecord, now time.Time) bool {
	until, _ := time.Parse(time.RFC3339, r.Until) // checked by ParseClaimRecord
	return r.State == ClaimHeld && !now.After(until)
}

// ClaimRemote takes a claim through the arbiter: create-only when the todo
// was never claimed there, else a compare-and-swap on the ref's current
// commit (released, expired or this agent's own, which renews). Exactly one
// of racing clones wins; the others record the loss and get a Conflict
// (exit 3) naming the holder and its lease end.
func (s *Service) ClaimRemote(a *Arbiter, goalID, todo, agent, actor string, lease time.Duration) (*Claim, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	if err := checkClaim(st, goalID, todo, agent, actor, lease); err != nil {
		return nil, err
	}
	old, rec, err := a.Read(goalID, todo)
	if err != nil {
		return nil, err
	}
	now := s.now()
	tookOver := ""
	if rec != nil && rec.State == ClaimHeld && (rec.Agent != agent || rec.Writer != a.Writer) {
		if live(rec, now) {
			return nil, s.lost(a, goalID, todo, agent, rec, false)
		}
		tookOver = rec.Agent
	}
	next := &ClaimRecord{Goal: goalID, Todo: todo, Agent: agent, Until: leaseEnd(now, lease), Writer: a.Writer, State: ClaimHeld}
	commit, err := a.swap(next, old)
	if errors.Is(err, errLost) {
		_, rec, rerr := a.Read(goalID, todo)
		if rerr != nil {
			return nil, rerr
		}
		return nil, s.lost(a, goalID, todo, agent, rec, true)
	}
	if err != nil {
		return nil, err
	}
	c := &Claim{Goal: goalID, Todo: todo, Agent: agent, Until: next.Until, Arbiter: ArbiterRemote,
		Remote: a.Remote, Writer: a.Writer, Commit: commit, TookOverFrom: tookOver}
	_, err = record(s, todoClaimedKind, fmt.Sprintf("goal/%s/todo/%s/claim/%d", goalID, todo, now.UnixNano()), *c)
	return c, err
}

// lost records a race the arbiter gave to rec's holder and returns the
// Conflict the loser exits with.
func (s *Service) lost(a *Arbiter, goalID, todo, agent string, rec *ClaimRecord, race bool) error {
	if rec == nil || rec.State != ClaimHeld {
		return fault.Conflictf("todo %s changed on %s while claiming it; try again", todo, a.Remote)
	}
	l := ClaimLost{Goal: goalID, Todo: todo, Agent: agent, Remote: a.Remote, Holder: rec.Agent, HolderWriter: rec.Writer, HolderUntil: rec.Until}
	if _, err := record(s, todoClaimLostKind, fmt.Sprintf("goal/%s/todo/%s/lost/%s/%d", goalID, todo, agent, s.now().UnixNano()), l); err != nil {
		return err
	}
	how := ""
	if race {
		how = " (it won the push race)"
	}
	return fault.Conflictf("todo %s is claimed by %s (writer %s) until %s on %s%s", todo, rec.Agent, rec.Writer, rec.Until, a.Remote, how)
}

// ReleaseRemote hands a claim back through the arbiter: a compare-and-swap
// of the claim ref to a released commit. Only the holder (agent and
// writer) can; a claim another clone took over is a Conflict. It returns
// the release it recorded.
func (s *Service) ReleaseRemote(a *Arbiter, goalID, todo, agent, actor string) (*Claim, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	if _, err := s.goal(st, goalID); err != nil {
		return nil, err
	}
	if actor != "" && actor != agent {
		return nil, fault.Refusedf("%s cannot release a todo for %s", actor, agent)
	}
	if err := ValidateName("todo id", todo); err != nil {
		return nil, err
	}
	old, rec, err := a.Read(goalID, todo)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if rec == nil || rec.State != ClaimHeld {
		return nil, fault.Invalidf("%s holds no claim on todo %s on %s", agent, todo, a.Remote)
	}
	if rec.Agent != agent || rec.Writer != a.Writer {
		return nil, fault.Conflictf("todo %s is claimed by %s (writer %s) until %s on %s, not by %s here", todo, rec.Agent, rec.Writer, rec.Until, a.Remote, agent)
	}
	next := &ClaimRecord{Goal: goalID, Todo: todo, Agent: agent, Until: now.UTC().Format(time.RFC3339), Writer: a.Writer, State: ClaimReleased}
	commit, err := a.swap(next, old)
	if errors.Is(err, errLost) {
		_, rec, rerr := a.Read(goalID, todo)
		if rerr != nil {
			return nil, rerr
		}
		return nil, s.lost(a, goalID, todo, agent, rec, true)
	}
	if err != nil {
		return nil, err
	}
	rel := &Claim{Goal: goalID, Todo: todo, Agent: agent, Arbiter: ArbiterRemote, Remote: a.Remote, Writer: a.Writer, Commit: commit}
	_, err = record(s, todoReleasedKind, fmt.Sprintf("goal/%s/todo/%s/release/%d", goalID, todo, now.UnixNano()), *rel)
	return rel, err
}
