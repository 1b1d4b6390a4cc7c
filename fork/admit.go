package fork

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/plugins/vocab"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// Request is what fork admit is asked for. BranchID is chosen by the
// caller and makes a repeated admission idempotent.
type Request struct {
	BranchID       string
	Source         string
	SourceWorktree string // default: the worktree the source last reported
	SourceSession  string // default: the source's newest live session
	ResumeRef      string // default: session:<source session>
	Executor       string // default: the first idle capability-matched peer
	Capabilities   []string
	AuthorityRef   string
	Task           string
	Lease          time.Duration
	DryRun         bool
}

// DefaultLease bounds a branch's execution when no --lease is given.
const DefaultLease = 30 * time.Minute

// MaxTask bounds the task text a branch is given.
const MaxTask = peers.MaxMessage

// sameRequest says whether an existing branch was admitted from the same
// request, so that a repeated admission is a success that does nothing.
func sameRequest(b *Branch, r Request, lease time.Duration) bool {
	return b.SourceAgent == r.Source && b.AuthorityRef == r.AuthorityRef && b.Task == r.Task &&
		(r.Executor == "" || b.ExecutorAgent == r.Executor) &&
		(r.SourceWorktree == "" || b.SourceWorktree == r.SourceWorktree) &&
		b.LeaseSeconds == int(lease/time.Second)
}

func (r *Request) validate() error {
	if err := ValidateBranchID(r.BranchID); err != nil {
		return err
	}
	if err := peers.ValidateName("--source", r.Source); err != nil {
		return err
	}
	if r.Executor != "" {
		if err := peers.ValidateName("--executor", r.Executor); err != nil {
			return err
		}
	}
	if r.SourceWorktree != "" {
		if err := worktree.ValidateSlug(r.SourceWorktree); err != nil {
			return err
		}
	}
	if r.SourceSession != "" {
		if err := sessions.ValidateID(r.SourceSession); err != nil {
			return err
		}
	}
	for _, c := range r.Capabilities {
		if !vocab.ValidCapability(c) {
			return fault.Invalidf("--capability %q is not one of %s", c, strings.Join(vocab.Capabilities, ", "))
		}
	}
	if strings.TrimSpace(r.AuthorityRef) == "" {
		return fault.Refusedf("--authority-ref is required: an admission without an authority reference fails closed")
	}
	if strings.TrimSpace(r.Task) == "" {
		return fault.Invalidf("--task (or --task-file) is required: what the branch is to do")
	}
	for _, f := range []struct {
		flag, v string
		max     int
	}{{"--authority-ref", r.AuthorityRef, peers.MaxText}, {"--resume-ref", r.ResumeRef, peers.MaxText}, {"--task", r.Task, MaxTask}} {
		if err := peers.CheckText(f.flag, f.v, f.max); err != nil {
			return err
		}
	}
	if r.Lease < 0 || (r.Lease > 0 && r.Lease < time.Second) {
		return fault.Invalidf("--lease must be at least 1s")
	}
	return nil
}

// Admit validates the whole admission, proving each capability the
// protocol names or failing closed. In dry-run it records the admission,
// marked dry run, and starts nothing. Otherwise it snapshots the source,
// reserves capacity, leases the executor peer, makes the branch's
// worktree from the source state and starts the executor's session there.
// already is true when the same branch id was admitted with the same
// request: nothing new is done.
func (s *Service) Admit(r Request) (b *Branch, already bool, err error) {
	if err := r.validate(); err != nil {
		return nil, false, err
	}
	mode, err := requireMode(s.Repo, r.DryRun)
	if err != nil {
		return nil, false, err
	}
	lease := r.Lease
	if lease == 0 {
		lease = DefaultLease
	}
	if !r.DryRun {
		if err := s.Reconcile(); err != nil {
			return nil, false, err
		}
	}
	branches, err := Read(s.Ledger)
	if err != nil {
		return nil, false, err
	}
	if old := branches[r.BranchID]; old != nil && (!old.DryRun || r.DryRun) {
		if sameRequest(old, r, lease) && old.DryRun == r.DryRun {
			return old, true, nil
		}
		return nil, false, fault.Conflictf("execution branch %s exists (%s) from another request; choose another id", r.BranchID, old.State)
	}
	st, err := peers.Read(s.Ledger)
	if err != nil {
		return nil, false, err
	}
	a := Admission{BranchID: r.BranchID, Mode: mode, DryRun: r.DryRun, SourceAgent: r.Source, AuthorityRef: r.AuthorityRef,
		Task: r.Task, LeaseSeconds: int(lease / time.Second), SourceStateRef: SourceRef(r.BranchID),
		ResultRef: ResultRef(r.BranchID), Worktree: "fork-" + r.BranchID}
	prove := func(cap, evidence string) { a.Proofs = append(a.Proofs, Proof{Capability: cap, Evidence: evidence}) }
	prove("idempotent_branch_id", "execution_branch_id "+r.BranchID+" is new on this clone's ledger")
	prove("authority_ref", "opaque authority reference given by the caller")

	// Versioned execution state and session fork.
	src := st.Peers[r.Source]
	if src == nil {
		return nil, false, fault.Invalidf("--source %q is not a registered peer", r.Source)
	}
	var rec *sessions.Record
	if r.SourceSession != "" {
		rec, err = sessions.OpenView(s.Repo.CommonDir).Load(r.SourceSession)
		if err != nil {
			return nil, false, err
		}
		if !slices.Contains(src.Sessions, rec.ID) {
			return nil, false, fault.Refusedf("session %s is not attached to %s (git agentproto peer attach)", rec.ID, r.Source)
		}
	} else if rec, err = liveSession(s.Repo, src); err != nil {
		return nil, false, err
	}
	if !slices.Contains(rec.Capabilities, vocab.CapStateFork) {
		return nil, false, fault.Refusedf("source session %s (%s) does not have %s (its capabilities, from its %s: %s): its execution state cannot be forked",
			rec.ID, rec.Adapter, vocab.CapStateFork, capSource(rec.CapabilitiesFrom), orNone(rec.Capabilities))
	}
	a.SourceSession, a.ResumeRef = rec.ID, r.ResumeRef
	if a.ResumeRef == "" {
		a.ResumeRef = "session:" + rec.ID
	}
	prove(vocab.CapStateFork, "source session "+rec.ID+" ("+rec.Adapter+") declares it")
	slug := r.SourceWorktree
	if slug == "" {
		slug = workspaceOf(st, r.Source)
	}
	if slug == "" {
		return nil, false, fault.Refusedf("source %s reported no workspace (peer status --workspace SLUG) and no --source-worktree was given: there is no state to fork", r.Source)
	}
	srcMeta, err := worktree.Load(s.Repo, slug)
	if err != nil {
		return nil, false, err
	}
	a.SourceWorktree = slug
	commit, err := s.snapshot(srcMeta, fmt.Sprintf("fork %s: source state of %s (worktree %s)", r.BranchID, r.Source, slug))
	if err != nil {
		return nil, false, fmt.Errorf("snapshotting the source worktree %s: %w", slug, err)
	}
	a.SourceStateCommit = commit
	prove("versioned_execution_state", "commit "+commit+" of worktree "+slug+", tracked and untracked files")

	// Copy-on-write workspace: a new worktree from the source state.
	if err := s.Worktree.NeedsOwnWorktree(os.Getenv, "a fork branch"); err != nil {
		return nil, false, err
	}
	if _, err := worktree.Load(s.Repo, a.Worktree); err == nil {
		return nil, false, fault.Conflictf("worktree %s already exists; choose another branch id", a.Worktree)
	}
	path, err := worktree.Location(s.Repo, s.Worktree.Root, a.Worktree)
	if err != nil {
		return nil, false, err
	}
	prove("workspace_copy_on_write", "worktree "+a.Worktree+" at "+path+" from "+a.SourceStateRef)
	for _, ref := range []string{a.SourceStateRef, a.ResultRef} {
		if refCommit(s.Repo, ref) != "" {
			return nil, false, fault.Conflictf("%s already exists; choose another branch id", ref)
		}
	}
	prove("held_result_settlement", "the result is held on "+a.ResultRef+" until fork settle --select or --discard; never merged")

	// Idle, capability-matched peer selection.
	need := append([]string{vocab.CapTermination}, r.Capabilities...)
	sort.Strings(need)
	candidates, err := s.candidates(st, branches, r, need)
	if err != nil {
		return nil, false, err
	}
	a.ExecutorAgent, a.ExecutorAdapter = candidates[0], st.Peers[candidates[0]].Adapter
	prove("idle_peer_selection", fmt.Sprintf("%s: registered, declares %s, no live claim or lease", a.ExecutorAgent, strings.Join(need, ", ")))

	// Capacity, before anything is written.
	active, err := activeBranches(s.Repo)
	if err != nil {
		return nil, false, err
	}
	a.Capacity = Capacity{Max: s.max(), Active: len(active)}
	if len(active) >= s.max() {
		return nil, false, fault.Conflictf("fork capacity is exhausted: %d of %d branches active (%s); settle or cancel one, or raise [fork] max_branches", len(active), s.max(), strings.Join(active, ", "))
	}
	prove("scheduler_capacity_reservation", fmt.Sprintf("%d of %d branches active before this one", len(active), s.max()))
	prove("branch_execution_lease", "a compare-and-swap of "+LeaseRef(a.ExecutorAgent)+"; one peer, one branch")
	a.BranchLeaseID = "lease-" + r.BranchID + "-" + randomHex()
	a.EvidenceRefs = []string{a.SourceStateRef, "session:" + rec.ID, "worktree:" + slug}
	prove("compact_evidence_refs", strings.Join(a.EvidenceRefs, ", "))

	if r.DryRun {
		a.BranchLeaseID = "" // nothing is leased in a dry run
		_, err := s.append(KindProposed, recordID(r.BranchID, "dry-run"), a)
		if err != nil {
			return nil, false, err
		}
		return &Branch{Admission: a, State: StateProposalOnly}, false, nil
	}
	return s.run(a, candidates, lease)
}

// candidates are the peers that could run the branch, best first: the one
// named, or every registered peer but the source, least leased first.
func (s *Service) candidates(st *peers.State, branches map[string]*Branch, r Request, need []string) ([]string, error) {
	var names []string
	if r.Executor != "" {
		if st.Peers[r.Executor] == nil {
			return nil, fault.Invalidf("--executor %q is not a registered peer", r.Executor)
		}
		names = []string{r.Executor}
	} else {
		for a := range st.Peers {
			if a != r.Source {
				names = append(names, a)
			}
		}
	}
	used := map[string]int{}
	for _, b := range branches {
		if !b.DryRun {
			used[b.ExecutorAgent]++
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if used[names[i]] != used[names[j]] {
			return used[names[i]] < used[names[j]]
		}
		return names[i] < names[j]
	})
	var ok, why []string
	for _, a := range names {
		if miss := peers.MissingCapabilities(need, st.Peers[a].Capabilities); len(miss) > 0 {
			why = append(why, a+" lacks "+strings.Join(miss, ", "))
			continue
		}
		if reason := s.busy(st, branches, a); reason != "" {
			why = append(why, a+" "+reason)
			continue
		}
		ok = append(ok, a)
	}
	if len(ok) == 0 {
		if len(why) == 0 {
			why = []string{"no registered peer besides the source"}
		}
		return nil, fault.Conflictf("no idle capability-matched peer for branch %s: %s", r.BranchID, join(why))
	}
	return ok, nil
}

// run carries an admission out: proposal, source ref, capacity, lease,
// worktree, session. A failure after the reservation records the branch
// failed and releases what it held.
func (s *Service) run(a Admission, candidates []string, leaseFor time.Duration) (*Branch, bool, error) {
	a.DryRun = false
	if _, err := s.append(KindProposed, recordID(a.BranchID, "proposal"), a); err != nil {
		return nil, false, err
	}
	b := &Branch{Admission: a, State: StateProposalOnly}
	if err := swapRef(s.Repo, a.SourceStateRef, a.SourceStateCommit, "", "fork: source state of "+a.BranchID); err != nil {
		return b, false, s.fail(b, "admission", "source_ref_exists", err)
	}
	capy, err := reserve(s.Repo, a.BranchID, s.max())
	if err != nil {
		return b, false, s.fail(b, "admission", "capacity_exhausted", err)
	}
	b.Capacity = capy
	if _, err := s.append(KindAdmitted, recordID(a.BranchID, "admitted"), b.Admission); err != nil {
		return b, false, err
	}
	b.State = StateAdmitted
	var lost []string
	until := s.now().Add(leaseFor).UTC().Truncate(time.Second)
	for _, agent := range candidates {
		err := takeLease(s.Repo, lease{Agent: agent, Branch: a.BranchID, LeaseID: a.BranchLeaseID, Until: until.Format(time.RFC3339)}, s.now())
		if err == nil {
			b.ExecutorAgent = agent
			break
		}
		if fault.KindOf(err) != fault.Conflict {
			return b, false, s.fail(b, "lease", "host_error", err)
		}
		lost = append(lost, err.Error())
	}
	if len(lost) == len(candidates) {
		return b, false, s.fail(b, "lease", "lease_lost", fault.Conflictf("%s", join(lost)))
	}
	b.LeaseEnd = until.Format(time.RFC3339)
	if _, err := s.append(KindLeased, recordID(a.BranchID, "leased"), Step{BranchID: a.BranchID, LeaseID: a.BranchLeaseID,
		Executor: b.ExecutorAgent, LeaseUntil: b.LeaseEnd, EvidenceRefs: []string{LeaseRef(b.ExecutorAgent)}}); err != nil {
		return b, false, s.fail(b, "lease", "ledger", err)
	}
	b.State = StateLeased
	// Made and recorded as worktree new makes one, from the source state
	// and without setup hooks: the branch starts from exactly that state.
	mg := &worktree.Manager{Repo: s.Repo, Config: config.Worktree{Root: s.Worktree.Root}, Out: io.Discard, By: "fork",
		Ledger: func() (gitstore.Store, error) { return s.Ledger, nil }}
	m, err := mg.New(worktree.CreateOptions{Slug: a.Worktree, Branch: "fork/" + a.BranchID,
		BaseName: a.SourceStateRef, BaseCommit: a.SourceStateCommit, NoSetup: true})
	if err != nil {
		return b, false, s.fail(b, "workspace", "host_error", err)
	}
	if ok, err := holdsLease(s.Repo, b.ExecutorAgent, a.BranchLeaseID, s.now()); err != nil || !ok {
		return b, false, s.fail(b, "start", "lease_lost", fault.Conflictf("the lease of %s ended before the branch started", b.ExecutorAgent))
	}
	st, _ := peers.Read(s.Ledger)
	adapter := a.ExecutorAdapter
	if st != nil && st.Peers[b.ExecutorAgent] != nil {
		adapter = st.Peers[b.ExecutorAgent].Adapter
	}
	b.ExecutorAdapter = adapter
	deadline, _ := time.Parse(time.RFC3339, b.LeaseEnd)
	id, err := s.Host.Start(StartSpec{Adapter: adapter, Dir: m.Path, Worktree: m.Slug, Label: "fork/" + a.BranchID, Prompt: prompt(b), Deadline: deadline})
	if err != nil {
		b.Session = id
		return b, false, s.fail(b, "start", "host_failed", err)
	}
	b.Session = id
	if _, err := s.append(KindRunning, recordID(a.BranchID, "running"), Step{BranchID: a.BranchID, LeaseID: a.BranchLeaseID,
		Worktree: m.Slug, Session: id, EvidenceRefs: []string{"session:" + id}}); err != nil {
		return b, false, s.fail(b, "start", "ledger", err)
	}
	b.State = StateRunning
	return b, false, nil
}

// prompt is what the executor peer is told.
func prompt(b *Branch) string {
	return fmt.Sprintf("You run execution branch %s for %s, forked from %s's state (%s).\nYour result is held for settlement; it is never merged because you finished.\n\n%s\n",
		b.BranchID, b.ExecutorAgent, b.SourceAgent, b.SourceStateCommit, b.Task)
}

func randomHex() string {
	var r [4]byte
	rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

// capSource says where a record's capabilities come from, for messages.
func capSource(from string) string {
	if from == sessions.CapabilitiesFromSession {
		return "agent's own declaration"
	}
	return "adapter's declaration"
}

func orNone(caps []string) string {
	if len(caps) == 0 {
		return "none"
	}
	return strings.Join(caps, ", ")
}
