package fork

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// maxChanged bounds the paths a held result lists: compact evidence, the
// result ref has the rest.
const maxChanged = 50

// snapshot commits the whole state of a worktree (tracked files as on
// disk, untracked files not ignored) on top of its branch head.
func (s *Service) snapshot(m *worktree.Meta, msg string) (string, error) {
	tree, err := worktree.StateTree(s.Repo, m)
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", tree, "-m", msg}
	if head := worktree.BranchHead(s.Repo, m); head != "" {
		args = append(args, "-p", head)
	}
	return commitTree(s.Repo, args...)
}

// fail ends a branch closed: its session killed, its lease and capacity
// released, the failure recorded as its one outcome. It returns cause.
func (s *Service) fail(b *Branch, stage, why string, cause error) error {
	s.release(b)
	step := Step{BranchID: b.BranchID, LeaseID: b.BranchLeaseID, Session: b.Session, Stage: stage, Cause: why,
		Reason: cause.Error(), EvidenceRefs: b.evidence()}
	if _, err := s.append(KindFailed, recordID(b.BranchID, "outcome"), step); err != nil {
		return fmt.Errorf("%v; recording the failure: %w", cause, err)
	}
	b.State, b.Outcome = StateFailed, &step
	return fmt.Errorf("branch %s failed at %s (%s): %w", b.BranchID, stage, why, cause)
}

// release kills the branch's session and gives back its peer and its
// capacity. It deletes nothing: worktree, refs and records stay.
func (s *Service) release(b *Branch) {
	if b.Session != "" && s.Host != nil {
		s.Host.Kill(b.Session)
	}
	if b.ExecutorAgent != "" && b.BranchLeaseID != "" {
		moveLease(s.Repo, b.ExecutorAgent, b.BranchLeaseID, "released")
	}
	unreserve(s.Repo, b.BranchID)
}

func (b *Branch) evidence() []string {
	refs := []string{b.SourceStateRef}
	if b.Session != "" {
		refs = append(refs, "session:"+b.Session)
	}
	if b.Outcome != nil && b.Outcome.ResultCommit != "" {
		refs = append(refs, b.ResultRef)
	}
	return refs
}

// Reconcile brings every executing branch up to date: a lease that ended
// or was lost expires the branch (fail closed: its session is killed), a
// session whose turn ended holds its result, one that failed fails.
func (s *Service) Reconcile() error {
	all, err := Read(s.Ledger)
	if err != nil {
		return err
	}
	for _, b := range Sorted(all) {
		if b.DryRun || !b.Executing() {
			continue
		}
		if err := s.reconcile(b); err != nil && fault.KindOf(err) != fault.Conflict {
			return err
		}
	}
	return nil
}

func (s *Service) reconcile(b *Branch) error {
	now := s.now()
	if b.State == StateAdmitted || b.LeaseEnd == "" {
		// The admitting process is between its steps, or died there: an
		// admission that got no lease within the lease's length gives its
		// capacity back.
		if at, ok := b.since(StateAdmitted); ok && now.Sub(at) > time.Duration(b.LeaseSeconds)*time.Second {
			s.release(b)
			step := Step{BranchID: b.BranchID, Cause: "admission_abandoned",
				Reason: "the admission took no lease within " + (time.Duration(b.LeaseSeconds) * time.Second).String(), EvidenceRefs: b.evidence()}
			_, err := s.append(KindExpired, recordID(b.BranchID, "outcome"), step)
			b.State, b.Outcome = StateExpired, &step
			return err
		}
		return nil
	}
	held, err := holdsLease(s.Repo, b.ExecutorAgent, b.BranchLeaseID, now)
	if err != nil {
		return err
	}
	if !held {
		cause := "lease_lost"
		if until, err := time.Parse(time.RFC3339, b.LeaseEnd); err == nil && !now.Before(until) {
			cause = "lease_ended"
		}
		s.release(b)
		step := Step{BranchID: b.BranchID, LeaseID: b.BranchLeaseID, Session: b.Session, Cause: cause,
			Reason: "the branch lease of " + b.ExecutorAgent + " ended before a result was held", EvidenceRefs: b.evidence()}
		_, err := s.append(KindExpired, recordID(b.BranchID, "outcome"), step)
		b.State, b.Outcome = StateExpired, &step
		return err
	}
	if b.State != StateRunning || b.Session == "" {
		return nil
	}
	rec, err := sessions.OpenView(s.Repo.CommonDir).Load(b.Session)
	if err != nil {
		return err
	}
	switch {
	case rec.State == sessions.StateSettled || (rec.State == sessions.StateExited && rec.ExitCode != nil && *rec.ExitCode == 0):
		return s.hold(b)
	case sessions.Terminal(rec.State):
		return s.fail(b, "run", "session_"+rec.State, fmt.Errorf("session %s is %s: %s", rec.ID, rec.State, rec.Failure))
	}
	return nil
}

// hold snapshots the branch's worktree onto its result ref, on top of the
// source state, and records held_result. The session is ended: the lease
// authorized one bounded execution. The peer stays reserved for the
// branch until it is settled.
func (s *Service) hold(b *Branch) error {
	m, err := worktree.Load(s.Repo, b.Worktree)
	if err != nil {
		return s.fail(b, "result", "workspace_missing", err)
	}
	tree, err := worktree.StateTree(s.Repo, m)
	if err != nil {
		return s.fail(b, "result", "host_error", err)
	}
	commit, err := commitTree(s.Repo, "commit-tree", tree, "-p", b.SourceStateCommit, "-m",
		fmt.Sprintf("fork %s: held result of %s", b.BranchID, b.ExecutorAgent))
	if err != nil {
		return s.fail(b, "result", "host_error", err)
	}
	if err := swapRef(s.Repo, b.ResultRef, commit, "", "fork: held result of "+b.BranchID); err != nil {
		return err
	}
	changed, err := worktree.DiffTrees(s.Repo, b.SourceStateCommit, commit)
	if err != nil {
		return s.fail(b, "result", "host_error", err)
	}
	if len(changed) > maxChanged {
		changed = append(changed[:maxChanged], fmt.Sprintf("... %d more", len(changed)-maxChanged))
	}
	s.Host.Kill(b.Session)
	if err := moveLease(s.Repo, b.ExecutorAgent, b.BranchLeaseID, "settling"); err != nil {
		return err
	}
	step := Step{BranchID: b.BranchID, LeaseID: b.BranchLeaseID, Session: b.Session, ResultRef: b.ResultRef,
		ResultCommit: commit, Changed: changed, EvidenceRefs: []string{b.ResultRef, "session:" + b.Session}}
	if _, err := s.append(KindHeld, recordID(b.BranchID, "outcome"), step); err != nil {
		return err
	}
	b.State, b.Outcome = StateHeld, &step
	return nil
}

// Wait waits for the branch's session to end its turn, then reconciles.
func (s *Service) Wait(id string, timeout time.Duration) (*Branch, error) {
	b, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if b.State == StateRunning && b.Session != "" {
		if err := s.Host.Wait(b.Session, timeout); err != nil {
			return b, err
		}
	}
	if err := s.Reconcile(); err != nil {
		return b, err
	}
	return s.Get(id)
}

// Settle decides a held result: selected marks it for the ordinary path
// (verify, review, consolidate) and merges nothing; discarded keeps the
// evidence. Either releases the peer and the capacity and deletes nothing.
func (s *Service) Settle(id string, sel bool, reason string, evidence []string) (*Branch, bool, error) {
	if err := ValidateBranchID(id); err != nil {
		return nil, false, err
	}
	if _, err := requireMode(s.Repo, false); err != nil {
		return nil, false, err
	}
	if strings.TrimSpace(reason) == "" {
		return nil, false, fault.Invalidf("--reason is required: why the result is selected or discarded")
	}
	if err := peers.CheckText("--reason", reason, peers.MaxText); err != nil {
		return nil, false, err
	}
	for _, e := range evidence {
		if err := peers.CheckText("--evidence-ref", e, peers.MaxText); err != nil {
			return nil, false, err
		}
	}
	if err := s.Reconcile(); err != nil {
		return nil, false, err
	}
	b, err := s.Get(id)
	if err != nil {
		return nil, false, err
	}
	kind, want := KindDiscarded, StateDiscarded
	if sel {
		kind, want = KindSelected, StateSelected
	}
	if b.State == want {
		return b, true, nil
	}
	if b.State != StateHeld {
		return b, false, fault.Refusedf("branch %s is %s; only a held_result can be settled", id, b.State)
	}
	step := Step{BranchID: id, LeaseID: b.BranchLeaseID, ResultRef: b.ResultRef, ResultCommit: b.Outcome.ResultCommit,
		Reason: reason, EvidenceRefs: append([]string{b.ResultRef, b.SourceStateRef}, evidence...)}
	if _, err := s.append(kind, recordID(id, "settlement"), step); err != nil {
		return b, false, err
	}
	b.Session = "" // ended when the result was held
	s.release(b)
	b.State, b.Settled = want, &step
	return b, false, nil
}

// Cancel ends a branch that has not held a result: its session is killed
// and it fails closed with cause cancelled.
func (s *Service) Cancel(id, reason string) (*Branch, bool, error) {
	if err := ValidateBranchID(id); err != nil {
		return nil, false, err
	}
	if _, err := requireMode(s.Repo, false); err != nil {
		return nil, false, err
	}
	if err := peers.CheckText("--reason", reason, peers.MaxText); err != nil {
		return nil, false, err
	}
	if err := s.Reconcile(); err != nil {
		return nil, false, err
	}
	b, err := s.Get(id)
	if err != nil {
		return nil, false, err
	}
	switch {
	case b.DryRun:
		return b, false, fault.Refusedf("branch %s is a dry run: nothing runs, nothing to cancel", id)
	case b.State == StateHeld:
		return b, false, fault.Refusedf("branch %s holds a result; settle it (fork settle %s --discard)", id, id)
	case !b.Executing() && b.State != StateProposalOnly:
		return b, true, nil // it ended already
	}
	if reason == "" {
		reason = "cancelled by the operator"
	}
	err = s.fail(b, b.State, "cancelled", fmt.Errorf("%s", reason))
	if b.State == StateFailed {
		return b, false, nil
	}
	return b, false, err
}
