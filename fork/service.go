package fork

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/names"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/plugins/vocab"
	"github.com/agentproto/agentproto/sessions"
)

// Host is what runs a branch: the sessions daemon on this machine.
type Host interface {
	// Start starts a session of adapter in the worktree and returns its id.
	Start(spec StartSpec) (string, error)
	// Kill ends a session; one already ended is no error.
	Kill(session string) error
	// Wait returns when the session's turn ended or it exited, or timeout.
	Wait(session string, timeout time.Duration) error
	// Ping says whether the host answers.
	Ping() error
}

// StartSpec is what a branch's session starts with.
type StartSpec struct {
	Adapter  string
	Dir      string
	Worktree string
	Prompt   string
	Label    string
	// Deadline is the branch lease's end: the host ends the session then,
	// so a branch never works past its lease.
	Deadline time.Time
}

// Service carries out fork commands on one repository.
type Service struct {
	Repo   *gitrepo.Repo
	Ledger *gitstore.Ledger
	Host   Host
	// MaxBranches is [fork] max_branches (0: one).
	MaxBranches int
	// Worktree is [worktree]: its root, where branch worktrees go, and its
	// isolation policy.
	Worktree config.Worktree
	Now      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) max() int {
	if s.MaxBranches <= 0 {
		return 1
	}
	return s.MaxBranches
}

// append records one event; written is false when the same record existed.
func (s *Service) append(kind, id string, data any) (bool, error) {
	res, err := owner.Record(s.Ledger, kind, id, data)
	if err != nil {
		return false, err
	}
	return len(res.Written) == 1, nil
}

// ValidateBranchID reports why id cannot name an execution branch: it
// names a worktree (fork-ID) and refs, so it is kept to a slug.
func ValidateBranchID(id string) error {
	if !names.Dashed(id, 1, 41) {
		return fault.Invalidf("execution branch id %q is not valid: lowercase letters, digits and dashes, at most 41", id)
	}
	return nil
}

// Get returns one branch.
func (s *Service) Get(id string) (*Branch, error) {
	if err := ValidateBranchID(id); err != nil {
		return nil, err
	}
	all, err := Read(s.Ledger)
	if err != nil {
		return nil, err
	}
	b := all[id]
	if b == nil {
		return nil, fault.Invalidf("no execution branch %q (git agentproto fork ls)", id)
	}
	markLeaseEnded(s.now(), b)
	return b, nil
}

// List returns every branch, by id.
func (s *Service) List() ([]*Branch, error) {
	all, err := Read(s.Ledger)
	if err != nil {
		return nil, err
	}
	bs := Sorted(all)
	markLeaseEnded(s.now(), bs...)
	return bs, nil
}

// HostCheck is what must hold for fork to join the supervisor's decision
// set on this clone: mode on, a host that answers, and a registered peer
// whose adapter declares session_state_fork.
func (s *Service) HostCheck() error {
	mode, err := Mode(s.Repo)
	if err != nil {
		return err
	}
	if mode != ModeOn {
		return fault.Refusedf("fork is not in this clone's decision set: its fork mode is %s (git config --local %s on)", mode, ModeConfigKey)
	}
	if s.Host == nil {
		return fault.Refusedf("fork is not in this clone's decision set: no host")
	}
	if err := s.Host.Ping(); err != nil {
		return fault.Refusedf("fork is not in this clone's decision set: the sessions daemon does not answer: %v", err)
	}
	st, err := peers.Read(s.Ledger)
	if err != nil {
		return err
	}
	for _, p := range st.Peers {
		if slices.Contains(p.Capabilities, vocab.CapStateFork) {
			return nil
		}
	}
	return fault.Refusedf("fork is not in this clone's decision set: no registered peer declares %s", vocab.CapStateFork)
}

// liveSession returns a peer's newest session that has not ended.
func liveSession(repo *gitrepo.Repo, p *peers.Peer) (*sessions.Record, error) {
	store := sessions.OpenView(repo.CommonDir)
	for i := len(p.Sessions) - 1; i >= 0; i-- {
		rec, err := store.Load(p.Sessions[i])
		if err == nil && !sessions.Terminal(rec.State) {
			return rec, nil
		}
	}
	return nil, fault.Refusedf("source %s has no live session to fork (git agentproto peer attach %s --session ID)", p.Agent, p.Agent)
}

// workspaceOf is the worktree a peer last reported on any goal.
func workspaceOf(st *peers.State, agent string) string {
	var slug, at string
	for _, byAgent := range st.Status {
		if s, ok := byAgent[agent]; ok && s.Workspace != "" && s.Time >= at {
			slug, at = s.Workspace, s.Time
		}
	}
	return slug
}

// busy says why a peer cannot take a branch now: a live todo claim, a
// live branch lease, or a branch of the ledger it still runs.
func (s *Service) busy(st *peers.State, branches map[string]*Branch, agent string) string {
	now := s.now()
	goals := make([]string, 0, len(st.Claims))
	for g := range st.Claims {
		goals = append(goals, g)
	}
	sort.Strings(goals)
	for _, g := range goals {
		for todo, c := range st.Claims[g] {
			if c.Agent != agent {
				continue
			}
			if _, live := st.Claimed(g, todo, now); live {
				return fmt.Sprintf("holds a live claim on %s/%s until %s", g, todo, c.Until)
			}
		}
	}
	if l, _, err := readLease(s.Repo, agent); err == nil && l != nil && l.live(now) {
		return fmt.Sprintf("is leased to branch %s (lease %s)", l.Branch, l.LeaseID)
	}
	for _, b := range Sorted(branches) {
		if b.ExecutorAgent == agent && b.Live() && !b.DryRun {
			return "still holds branch " + b.BranchID + " (" + b.State + ")"
		}
	}
	return ""
}

func join(parts []string) string { return strings.Join(parts, "; ") }
