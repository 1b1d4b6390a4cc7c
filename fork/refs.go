package fork

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Refs of the fork extension. They are this clone's scheduler state: the
// ledger sync never pushes them.
const (
	refPrefix   = "refs/agentproto/fork/"
	capacityRef = refPrefix + "capacity"
	leasePrefix = refPrefix + "leases/"
	branchRefs  = refPrefix + "branches/"
)

// SourceRef is the immutable ref of a branch's source state.
func SourceRef(branch string) string { return branchRefs + branch + "/source" }

// ResultRef is the ref a branch's result is held on, never merged.
func ResultRef(branch string) string { return branchRefs + branch + "/result" }

// LeaseRef is the ref that arbitrates a peer's branch lease.
func LeaseRef(agent string) string { return leasePrefix + agent }

// lease is the document a lease ref's commit holds.
type lease struct {
	Agent   string `json:"agent"`
	Branch  string `json:"execution_branch_id"`
	LeaseID string `json:"branch_lease_id"`
	Until   string `json:"lease_until,omitempty"`
	// State is held (bounded by Until), settling (the result is held
	// until it is settled) or released.
	State string `json:"state"`
}

func (l *lease) live(now time.Time) bool {
	switch l.State {
	case "settling":
		return true
	case "held":
		until, err := time.Parse(time.RFC3339, l.Until)
		return err == nil && now.Before(until)
	}
	return false
}

// capacity is the document the capacity ref's commit holds.
type capacity struct {
	Active []string `json:"active"`
}

// readDoc returns the commit a ref names ("" when absent) and the JSON
// document its tree holds.
func readDoc(repo *gitrepo.Repo, ref string, into any) (string, error) {
	commit, err := repo.Commit(ref)
	if errors.Is(err, gitrepo.ErrNoCommit) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	b, err := repo.Blob(commit, "doc.json")
	if err != nil {
		return "", fmt.Errorf("%s: %w", ref, err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return "", fmt.Errorf("%s holds no readable document: %v", ref, err)
	}
	return commit, nil
}

// writeDoc makes a commit holding doc (parent old, if any) and moves ref
// from old to it: git's compare-and-swap under the ref lock, so of two
// writers from the same old value exactly one succeeds. A lost race is a
// conflict.
func writeDoc(repo *gitrepo.Repo, ref, old, msg string, doc any) (string, error) {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	blob, err := repo.GitInput(append(b, '\n'), "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	tree, err := repo.GitInput([]byte("100644 blob "+strings.TrimSpace(string(blob))+"\tdoc.json\n"), "mktree")
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", strings.TrimSpace(string(tree)), "-m", msg}
	if old != "" {
		args = append(args, "-p", old)
	}
	c, err := commitTree(repo, args...)
	if err != nil {
		return "", err
	}
	if err := swapRef(repo, ref, c, old, msg); err != nil {
		return "", err
	}
	return c, nil
}

// swapRef moves ref to new if it still names old ("" : must not exist).
func swapRef(repo *gitrepo.Repo, ref, new, old, msg string) error {
	if err := repo.UpdateRefLogged(ref, new, old, msg); err != nil {
		return fault.Conflictf("%s moved meanwhile (another process won it): %v", ref, err)
	}
	return nil
}

// commitTree runs git commit-tree with a fixed identity, so that a host
// without user.name still records.
func commitTree(repo *gitrepo.Repo, args ...string) (string, error) {
	cmd := repo.Command(args...)
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_NAME=agentproto", "GIT_AUTHOR_EMAIL=agentproto@localhost",
		"GIT_COMMITTER_NAME=agentproto", "GIT_COMMITTER_EMAIL=agentproto@localhost")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git commit-tree: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// casRetries bounds how often a reservation re-reads a ref another
// process moved: each loss means another reservation went through.
const casRetries = 16

// reserve adds branch to the capacity ref unless max branches are active.
func reserve(repo *gitrepo.Repo, branch string, max int) (Capacity, error) {
	for i := 0; i < casRetries; i++ {
		var c capacity
		old, err := readDoc(repo, capacityRef, &c)
		if err != nil {
			return Capacity{}, err
		}
		for _, id := range c.Active {
			if id == branch {
				return Capacity{Max: max, Active: len(c.Active)}, nil
			}
		}
		if len(c.Active) >= max {
			return Capacity{Max: max, Active: len(c.Active)}, fault.Conflictf("fork capacity is exhausted: %d of %d branches active (%s); settle or cancel one, or raise [fork] max_branches",
				len(c.Active), max, strings.Join(c.Active, ", "))
		}
		c.Active = append(c.Active, branch)
		if _, err := writeDoc(repo, capacityRef, old, "fork: reserve "+branch, c); err == nil {
			return Capacity{Max: max, Active: len(c.Active)}, nil
		} else if fault.KindOf(err) != fault.Conflict {
			return Capacity{}, err
		}
	}
	return Capacity{}, fault.Conflictf("fork capacity: %s kept moving; try again", capacityRef)
}

// unreserve removes branch from the capacity ref; absent is done.
func unreserve(repo *gitrepo.Repo, branch string) error {
	for i := 0; i < casRetries; i++ {
		var c capacity
		old, err := readDoc(repo, capacityRef, &c)
		if err != nil {
			return err
		}
		kept := []string{}
		for _, id := range c.Active {
			if id != branch {
				kept = append(kept, id)
			}
		}
		if old == "" || len(kept) == len(c.Active) {
			return nil
		}
		c.Active = kept
		if _, err := writeDoc(repo, capacityRef, old, "fork: release "+branch, c); err == nil {
			return nil
		} else if fault.KindOf(err) != fault.Conflict {
			return err
		}
	}
	return fault.Conflictf("fork capacity: %s kept moving; try again", capacityRef)
}

// activeBranches reads the capacity ref.
func activeBranches(repo *gitrepo.Repo) ([]string, error) {
	var c capacity
	_, err := readDoc(repo, capacityRef, &c)
	return c.Active, err
}

// readLease returns a peer's lease document and its commit.
func readLease(repo *gitrepo.Repo, agent string) (*lease, string, error) {
	var l lease
	commit, err := readDoc(repo, LeaseRef(agent), &l)
	if err != nil || commit == "" {
		return nil, commit, err
	}
	return &l, commit, nil
}

// takeLease leases agent to a branch: the ref is absent, released or
// expired, and the swap from what was read goes through. Of two branches
// racing for one peer exactly one wins; the other is a conflict naming
// the holder.
func takeLease(repo *gitrepo.Repo, l lease, now time.Time) error {
	cur, old, err := readLease(repo, l.Agent)
	if err != nil {
		return err
	}
	if cur != nil && cur.live(now) && cur.LeaseID != l.LeaseID {
		return fault.Conflictf("peer %s is leased to branch %s (lease %s until %s)", l.Agent, cur.Branch, cur.LeaseID, cur.Until)
	}
	l.State = "held"
	if _, err := writeDoc(repo, LeaseRef(l.Agent), old, "fork: lease "+l.Agent+" to "+l.Branch, l); err != nil {
		if fault.KindOf(err) == fault.Conflict {
			if cur, _, rerr := readLease(repo, l.Agent); rerr == nil && cur != nil {
				return fault.Conflictf("peer %s was leased to branch %s meanwhile (lease %s until %s)", l.Agent, cur.Branch, cur.LeaseID, cur.Until)
			}
		}
		return err
	}
	return nil
}

// holdsLease reports whether the peer's lease is still leaseID and live;
// a lost or ended lease is why a branch fails closed.
func holdsLease(repo *gitrepo.Repo, agent, leaseID string, now time.Time) (bool, error) {
	cur, _, err := readLease(repo, agent)
	if err != nil {
		return false, err
	}
	return cur != nil && cur.LeaseID == leaseID && cur.live(now), nil
}

// moveLease sets the state of leaseID's lease, if the ref still names it.
func moveLease(repo *gitrepo.Repo, agent, leaseID, state string) error {
	for i := 0; i < casRetries; i++ {
		cur, old, err := readLease(repo, agent)
		if err != nil {
			return err
		}
		if cur == nil || cur.LeaseID != leaseID || cur.State == state {
			return nil // another branch holds the peer now
		}
		cur.State = state
		if _, err := writeDoc(repo, LeaseRef(agent), old, "fork: lease "+leaseID+" "+state, cur); err == nil {
			return nil
		} else if fault.KindOf(err) != fault.Conflict {
			return err
		}
	}
	return fault.Conflictf("%s kept moving; try again", LeaseRef(agent))
}

// refCommit returns the commit a ref names, "" when absent.
func refCommit(repo *gitrepo.Repo, ref string) string {
	commit, _ := repo.Commit(ref)
	return commit
}
