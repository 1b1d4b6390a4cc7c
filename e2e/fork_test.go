package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// forkHost is a repository with the fork canary on: a source peer with a
// live scripted session in its own worktree, and executor peers.
type forkHost struct {
	t   *testing.T
	dir string
	src string // the source worktree's path
	// srcSession is the source's live session, started by newForkHost.
	srcSession string
}

func newForkHost(t *testing.T, maxBranches int, executors ...string) *forkHost {
	t.Helper()
	dir := newRepo(t)
	h := &forkHost{t: t, dir: dir}
	os.WriteFile(filepath.Join(dir, "base.txt"), []byte("base at commit\n"), 0o644)
	if maxBranches > 0 {
		os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[fork]\nmax_branches = "+itoa(maxBranches)+"\n"), 0o644)
	}
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-qm", "base")
	h.ok("worktree", "new", "--no-setup", "src")
	h.src = h.worktreePath("src")
	// The source's state: a tracked file changed and an untracked one.
	os.WriteFile(filepath.Join(h.src, "base.txt"), []byte("base as the source left it\n"), 0o644)
	os.WriteFile(filepath.Join(h.src, "notes.txt"), []byte("untracked notes\n"), 0o644)
	h.ok("peer", "register", "src", "--adapter", "scripted")
	for _, e := range executors {
		h.ok("peer", "register", e, "--adapter", "scripted")
	}
	h.srcSession = h.sourceSession()
	must(t, dir, "git", "config", "--local", "agentproto.fork.mode", "on")
	return h
}

// sourceSession starts and attaches a live session of the source.
func (h *forkHost) sourceSession() string {
	id, errOut, err := startSession(h.t, h.dir, "--adapter", "scripted", "--worktree", "src", "--prompt", "hello")
	if err != nil {
		h.t.Fatalf("source session: %v %s", err, errOut)
	}
	h.ok("peer", "attach", "src", "--session", id)
	return id
}

func itoa(n int) string { return strconv.Itoa(n) }

func (h *forkHost) run(args ...string) (string, string, error) {
	return sh(h.t, h.dir, nil, "git", append([]string{"agentproto"}, args...)...)
}

func (h *forkHost) ok(args ...string) string {
	h.t.Helper()
	out, errOut, err := h.run(args...)
	if err != nil {
		h.t.Fatalf("%v: %v\n%s%s", args, err, out, errOut)
	}
	return out
}

func (h *forkHost) code(want int, args ...string) string {
	h.t.Helper()
	out, errOut, err := h.run(args...)
	if got := exitCode(err); got != want {
		h.t.Fatalf("%v: exit %d, want %d\n%s%s", args, got, want, out, errOut)
	}
	return errOut
}

func (h *forkHost) worktreePath(slug string) string {
	out := must(h.t, h.dir, "git", "worktree", "list", "--porcelain")
	for _, l := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok && filepath.Base(p) == slug {
			return p
		}
	}
	h.t.Fatalf("no worktree %s in\n%s", slug, out)
	return ""
}

// admit admits a branch whose task is a script for the scripted executor.
func (h *forkHost) admit(id string, extra []string, steps ...string) (string, string, error) {
	args := append([]string{"fork", "admit", id, "--source", "src", "--source-worktree", "src",
		"--authority-ref", "op:test", "--task", script(steps...)}, extra...)
	return h.run(args...)
}

type forkBranch struct {
	State             string   `json:"state"`
	DryRun            bool     `json:"dry_run"`
	SourceStateRef    string   `json:"source_state_ref"`
	SourceStateCommit string   `json:"source_state_commit"`
	SourceSession     string   `json:"source_session"`
	ResumeRef         string   `json:"session_resume_ref"`
	ExecutorAgent     string   `json:"executor_agent_id"`
	BranchLeaseID     string   `json:"branch_lease_id"`
	Worktree          string   `json:"worktree"`
	ResultRef         string   `json:"result_ref"`
	Session           string   `json:"session"`
	History           []string `json:"history"`
	Proofs            []struct {
		Capability string `json:"capability"`
	} `json:"proofs"`
	Outcome *struct {
		ResultCommit string   `json:"result_commit"`
		Changed      []string `json:"changed_paths"`
		Stage        string   `json:"stage"`
		Cause        string   `json:"cause"`
	} `json:"outcome"`
	Settled *struct {
		Reason string `json:"reason"`
	} `json:"settlement"`
	LeaseEnded bool `json:"lease_ended"`
}

func (h *forkHost) show(id string) forkBranch {
	h.t.Helper()
	var b forkBranch
	if err := json.Unmarshal([]byte(h.ok("fork", "show", id, "--json")), &b); err != nil {
		h.t.Fatal(err)
	}
	return b
}

func (h *forkHost) git(args ...string) string {
	return strings.TrimSpace(must(h.t, h.dir, "git", args...))
}

func (h *forkHost) leaseState(agent string) string {
	var l struct{ State, Execution_branch_id string }
	json.Unmarshal([]byte(h.git("cat-file", "blob", "refs/agentproto/fork/leases/"+agent+":doc.json")), &l)
	return l.State
}

func (h *forkHost) sessionState(id string) string { return sessionState(h.dir, id) }

func sessionIDs(h *forkHost) string {
	var ids []string
	for _, l := range strings.Split(h.ok("sessions", "ls", "--all"), "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "s-") {
			ids = append(ids, f[0])
		}
	}
	return strings.Join(ids, ",")
}

// ledgerCount counts the fork events (the daemon records session events
// of its own meanwhile).
func (h *forkHost) ledgerCount() int {
	return strings.Count(h.ok("ledger", "log", "--json"), `"kind":"fork_`)
}

// ledgerRecords counts the records whose kind starts with prefix. The
// sessions daemon records the source session's lifecycle as it goes, so a
// count of every record would race with it.
func (h *forkHost) ledgerRecords(prefix string) int {
	return strings.Count(h.ok("ledger", "log", "--json"), `"kind":"`+prefix)
}

// long is a task that keeps its branch running.
var long = `{"op":"sleep","ms":60000}`

// The canary is off by default and writes nothing; dry-run validates and
// records the whole admission, marked dry run, and starts nothing.
func TestForkModesOffAndDryRun(t *testing.T) {
	h := newForkHost(t, 0, "e1")
	must(t, h.dir, "git", "config", "--local", "--unset", "agentproto.fork.mode")
	before := h.ledgerCount()
	if e := h.code(5, "fork", "admit", "b1", "--source", "src", "--source-worktree", "src", "--authority-ref", "op", "--task", "x"); !strings.Contains(e, "forks are off on this clone") {
		t.Fatal(e)
	}
	must(t, h.dir, "git", "config", "--local", "agentproto.fork.mode", "sometimes")
	if e := h.code(2, "fork", "admit", "b1", "--source", "src", "--authority-ref", "op", "--task", "x"); !strings.Contains(e, "must be off, dry-run or on") {
		t.Fatal(e)
	}
	must(t, h.dir, "git", "config", "--local", "agentproto.fork.mode", "dry-run")
	if e := h.code(5, "fork", "admit", "b1", "--source", "src", "--source-worktree", "src", "--authority-ref", "op", "--task", "x"); !strings.Contains(e, "admissions go through fork admit --dry-run") {
		t.Fatal(e)
	}
	if h.ledgerCount() != before {
		t.Fatal("a refused admission wrote to the ledger")
	}
	sessionsBefore := h.ok("sessions", "ls", "--all")
	out := h.ok("fork", "admit", "b1", "--source", "src", "--source-worktree", "src", "--authority-ref", "op", "--task", "x", "--dry-run")
	if !strings.Contains(out, "valid (dry run)") || !strings.Contains(out, "would run on e1") {
		t.Fatal(out)
	}
	b := h.show("b1")
	if b.State != "proposal_only" || !b.DryRun || b.SourceStateCommit == "" || b.BranchLeaseID != "" {
		t.Fatalf("dry run recorded as %+v", b)
	}
	caps := map[string]bool{}
	for _, p := range b.Proofs {
		caps[p.Capability] = true
	}
	for _, c := range []string{"versioned_execution_state", "session_state_fork", "workspace_copy_on_write", "scheduler_capacity_reservation",
		"idle_peer_selection", "branch_execution_lease", "authority_ref", "idempotent_branch_id", "compact_evidence_refs", "held_result_settlement"} {
		if !caps[c] {
			t.Errorf("the dry run proves no %s: %+v", c, b.Proofs)
		}
	}
	if h.ok("sessions", "ls", "--all") != sessionsBefore {
		t.Fatal("a dry run started a session")
	}
	if refs := h.git("for-each-ref", "refs/agentproto/fork/"); refs != "" {
		t.Fatalf("a dry run made refs: %s", refs)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(h.src), "fork-b1")); err == nil {
		t.Fatal("a dry run made a worktree")
	}
	// Without the host proving a capability, even a dry run fails closed.
	if e := h.code(2, "fork", "admit", "b2", "--source", "src", "--source-worktree", "nosuch", "--authority-ref", "op", "--task", "x", "--dry-run"); !strings.Contains(e, "no agentproto worktree") {
		t.Fatal(e)
	}
	if e := h.code(5, "fork", "admit", "b2", "--source", "src", "--source-worktree", "src", "--task", "x", "--dry-run"); !strings.Contains(e, "--authority-ref is required") {
		t.Fatal(e)
	}
}

// heldBranch admits b1, changes the source worktree after the admission,
// and waits until the branch holds its result. The branch reads the
// source's files only after the change.
func heldBranch(t *testing.T, h *forkHost) forkBranch {
	t.Helper()
	steps := []string{`{"op":"sleep","ms":1500}`,
		`{"op":"run","cmd":"cat base.txt notes.txt > seen.txt; ls > listing.txt"}`,
		`{"op":"write","path":"result.txt","content":"the branch's work\n"}`}
	if _, errOut, err := h.admit("b1", nil, steps...); err != nil {
		t.Fatalf("admit: %v %s", err, errOut)
	}
	b := h.show("b1")
	if b.State != "running" || b.ExecutorAgent != "e1" || b.Session == "" || b.Session == b.SourceSession {
		t.Fatalf("after admit: %+v", b)
	}
	// The source keeps working after the admission.
	os.WriteFile(filepath.Join(h.src, "base.txt"), []byte("changed after admission\n"), 0o644)
	os.WriteFile(filepath.Join(h.src, "later.txt"), []byte("written after admission\n"), 0o644)
	h.code(5, "fork", "settle", "b1", "--select", "--reason", "too early") // not held yet
	waitFor(t, "the branch's turn to end", func() bool { return h.sessionState(b.Session) == "settled" })
	// The same admission again does nothing new; like every write verb it
	// first brings the branches up to date, which holds b1's result.
	if out, errOut, err := h.admit("b1", nil, steps...); err != nil || !strings.Contains(out, "already admitted: branch b1: held_result") {
		t.Fatalf("admit again: %v %s%s", err, out, errOut)
	}
	b = h.show("b1")
	if b.State != "held_result" || b.Outcome == nil || b.Outcome.ResultCommit == "" {
		t.Fatalf("after the turn: %+v", b)
	}
	return b
}

// The source state is an immutable commit of the whole source worktree at
// admission, untracked files included; the branch runs from it and does
// not see what the source does afterwards.
func TestForkSourceStateIsImmutable(t *testing.T) {
	h := newForkHost(t, 2, "e1")
	srcHead := h.git("rev-parse", "refs/heads/wt/src")
	b := heldBranch(t, h)
	if h.git("rev-parse", b.SourceStateRef) != b.SourceStateCommit {
		t.Fatal("the source state ref does not name the admitted commit")
	}
	if got := h.git("show", b.SourceStateCommit+":notes.txt"); got != "untracked notes" {
		t.Fatalf("the source state lacks the untracked file: %q", got)
	}
	if got := h.git("rev-parse", b.SourceStateCommit+"^"); got != srcHead {
		t.Fatalf("the source state's parent is %s, want the source branch head %s", got, srcHead)
	}
	res := b.Outcome.ResultCommit
	if got := h.git("show", res+":seen.txt"); got != "base as the source left it\nuntracked notes" {
		t.Fatalf("the branch saw %q, not the admitted source state", got)
	}
	if strings.Contains(h.git("show", res+":listing.txt"), "later.txt") {
		t.Fatal("the branch saw a file the source wrote after admission")
	}
	if got := h.git("show", b.SourceStateCommit+":base.txt"); got != "base as the source left it" {
		t.Fatalf("the source state moved: %q", got)
	}
}

// The branch writes only its own worktree: nothing reaches the source's
// worktree or branch, the main worktree or HEAD, and the source's own work
// is untouched.
func TestForkWorkspaceIsolation(t *testing.T) {
	h := newForkHost(t, 2, "e1")
	srcHead := h.git("rev-parse", "refs/heads/wt/src")
	mainHead := h.git("rev-parse", "HEAD")
	b := heldBranch(t, h)
	if p := h.worktreePath(b.Worktree); p == h.src || p == h.dir {
		t.Fatalf("the branch ran in %s", p)
	}
	provisionedBy(t, h.dir, b.Worktree, "fork")
	if _, err := os.Stat(filepath.Join(h.worktreePath(b.Worktree), "result.txt")); err != nil {
		t.Fatalf("the branch's own worktree lacks its work: %v", err)
	}
	for _, f := range []string{"result.txt", "seen.txt"} {
		if _, err := os.Stat(filepath.Join(h.src, f)); err == nil {
			t.Fatalf("%s appeared in the source worktree", f)
		}
		if _, err := os.Stat(filepath.Join(h.dir, f)); err == nil {
			t.Fatalf("%s appeared in the main worktree", f)
		}
	}
	if h.git("rev-parse", "refs/heads/wt/src") != srcHead || h.git("rev-parse", "HEAD") != mainHead {
		t.Fatal("a branch head moved")
	}
	if got, _ := os.ReadFile(filepath.Join(h.src, "base.txt")); string(got) != "changed after admission\n" {
		t.Fatalf("the source's own work changed: %q", got)
	}
	if st := h.sessionState(b.Session); st == "settled" || st == "running" {
		t.Fatalf("the branch's session is still live after its result was held: %s", st)
	}
}

// The result is held on its own ref, on top of the source state, until it
// is settled: selected marks it and merges nothing, discarded keeps the
// evidence; both release the peer and the capacity and delete nothing.
func TestForkHeldResultSettlement(t *testing.T) {
	h := newForkHost(t, 2, "e1")
	srcHead := h.git("rev-parse", "refs/heads/wt/src")
	mainHead := h.git("rev-parse", "HEAD")
	b := heldBranch(t, h)
	res := b.Outcome.ResultCommit
	if got := h.git("rev-parse", b.ResultRef); got != res {
		t.Fatalf("%s names %s, want %s", b.ResultRef, got, res)
	}
	if got := h.git("rev-parse", res+"^"); got != b.SourceStateCommit {
		t.Fatalf("the result's parent is %s, want the source state", got)
	}
	if !strings.Contains(strings.Join(b.Outcome.Changed, ","), "result.txt") {
		t.Fatalf("changed paths: %v", b.Outcome.Changed)
	}
	if h.leaseState("e1") != "settling" {
		t.Fatalf("lease of e1: %s", h.leaseState("e1"))
	}
	h.code(2, "fork", "settle", "b1", "--reason", "r")
	h.code(2, "fork", "settle", "b1", "--select", "--discard", "--reason", "r")
	h.code(2, "fork", "settle", "b1", "--select")
	h.ok("fork", "settle", "b1", "--select", "--reason", "best of the branches", "--evidence-ref", "review:1")
	b = h.show("b1")
	if b.State != "selected" || b.Settled == nil {
		t.Fatalf("after select: %+v", b)
	}
	if out := h.ok("fork", "settle", "b1", "--select", "--reason", "best of the branches"); !strings.Contains(out, "already") {
		t.Fatalf("a repeated settle: %s", out)
	}
	h.code(5, "fork", "settle", "b1", "--discard", "--reason", "changed my mind")
	if h.git("rev-parse", "HEAD") != mainHead || h.git("rev-parse", "refs/heads/wt/src") != srcHead {
		t.Fatal("selecting merged something")
	}
	if h.git("rev-parse", b.ResultRef) != res {
		t.Fatal("selecting moved the result ref")
	}
	if h.leaseState("e1") != "released" || h.git("cat-file", "blob", "refs/agentproto/fork/capacity:doc.json") != "{\n  \"active\": []\n}" {
		t.Fatalf("select did not release: lease %s, capacity %s", h.leaseState("e1"), h.git("cat-file", "blob", "refs/agentproto/fork/capacity:doc.json"))
	}

	// Discard keeps the evidence and deletes nothing.
	if _, errOut, err := h.admit("b2", []string{"--wait", "60s"}, `{"op":"write","path":"other.txt","content":"x\n"}`); err != nil {
		t.Fatalf("admit b2: %v %s", err, errOut)
	}
	b2 := h.show("b2")
	if b2.State != "held_result" || b2.ExecutorAgent != "e1" {
		t.Fatalf("b2 after --wait: %+v", b2)
	}
	h.ok("fork", "settle", "b2", "--discard", "--reason", "not needed")
	b2 = h.show("b2")
	if b2.State != "discarded" || h.leaseState("e1") != "released" {
		t.Fatalf("b2 after discard: %+v, lease %s", b2, h.leaseState("e1"))
	}
	for _, ref := range []string{b2.ResultRef, b2.SourceStateRef} {
		h.git("rev-parse", "--verify", ref)
	}
	if _, err := os.Stat(filepath.Join(h.worktreePath(b2.Worktree), "other.txt")); err != nil {
		t.Fatalf("discard removed the branch's worktree: %v", err)
	}
	if h.sessionState(b2.Session) == "" {
		t.Fatal("discard removed the session record")
	}
	ls := h.ok("fork", "ls")
	if !strings.Contains(ls, "b1  selected") || !strings.Contains(ls, "b2  discarded") {
		t.Fatalf("fork ls:\n%s", ls)
	}
}

// Capacity is reserved per branch: once [fork] max_branches are live the
// next admission is exit 3 and writes nothing; cancelling one frees it.
func TestForkCapacityExhaustion(t *testing.T) {
	h := newForkHost(t, 1, "e1", "e2")
	if _, errOut, err := h.admit("b1", nil, long); err != nil {
		t.Fatalf("admit b1: %v %s", err, errOut)
	}
	before := h.ledgerCount()
	_, errOut, err := h.admit("b2", nil, long)
	if exitCode(err) != 3 || !strings.Contains(errOut, "fork capacity is exhausted: 1 of 1 branches active (b1)") {
		t.Fatalf("admit over capacity: exit %d %s", exitCode(err), errOut)
	}
	if h.ledgerCount() != before {
		t.Fatal("a refused admission wrote to the ledger")
	}
	if refs := h.git("for-each-ref", "--format=%(refname)", "refs/agentproto/fork/branches/b2/"); refs != "" {
		t.Fatalf("a refused admission made refs: %s", refs)
	}
	b1 := h.show("b1")
	h.ok("fork", "cancel", "b1", "--reason", "make room")
	b1 = h.show("b1")
	if b1.State != "failed" || b1.Outcome.Cause != "cancelled" {
		t.Fatalf("b1 after cancel: %+v", b1)
	}
	waitFor(t, "the cancelled branch's session to end", func() bool { return h.sessionState(b1.Session) == "cleaned" })
	if _, errOut, err := h.admit("b2", nil, long); err != nil {
		t.Fatalf("admit b2 after the cancel: %v %s", err, errOut)
	}
	// Fairness: of the idle peers, the one that ran fewer branches.
	if b2 := h.show("b2"); b2.State != "running" || b2.ExecutorAgent != "e2" {
		t.Fatalf("b2: %+v", b2)
	}
	h.ok("fork", "cancel", "b2")
}

// The caller's branch id makes admission idempotent: the same request
// again does nothing and succeeds; another request under the id is exit 3.
func TestForkDuplicateAdmissionIsIdempotent(t *testing.T) {
	h := newForkHost(t, 3, "e1", "e2")
	if _, errOut, err := h.admit("b1", nil, long); err != nil {
		t.Fatalf("admit: %v %s", err, errOut)
	}
	first := h.show("b1")
	before, sessions := h.ledgerCount(), sessionIDs(h)
	out, errOut, err := h.admit("b1", nil, long)
	if err != nil || !strings.Contains(out, "already admitted: branch b1: running on "+first.ExecutorAgent) {
		t.Fatalf("admit again: %v %s%s", err, out, errOut)
	}
	if h.ledgerCount() != before || sessionIDs(h) != sessions {
		t.Fatalf("a repeated admission wrote (%d -> %d events) or started something (%s -> %s)", before, h.ledgerCount(), sessions, sessionIDs(h))
	}
	if again := h.show("b1"); again.Session != first.Session || again.BranchLeaseID != first.BranchLeaseID {
		t.Fatalf("the branch changed: %+v -> %+v", first, again)
	}
	_, errOut, err = h.admit("b1", nil, `{"op":"say","text":"another task"}`)
	if exitCode(err) != 3 || !strings.Contains(errOut, "execution branch b1 exists (running) from another request") {
		t.Fatalf("another request under the id: exit %d %s", exitCode(err), errOut)
	}
	if h.ledgerCount() != before {
		t.Fatal("a conflicting admission wrote to the ledger")
	}
	h.code(2, "fork", "admit", "B_1", "--source", "src", "--authority-ref", "op", "--task", "x")
	h.ok("fork", "cancel", "b1")
}

// The executor is a registered peer that declares what the branch needs and
// holds no live claim or lease; never the source unless named.
func TestForkSelectsAnIdleCapabilityMatchedPeer(t *testing.T) {
	h := newForkHost(t, 4)
	h.ok("peer", "register", "a-nocap", "--adapter", "scripted", "--capability", "session_message_injection")
	h.ok("peer", "register", "b-busy", "--adapter", "scripted")
	h.ok("peer", "register", "c-idle", "--adapter", "scripted")
	h.ok("peer", "register", "d-idle", "--adapter", "scripted", "--capability", "session_termination")
	h.ok("goal", "new", "g", "--title", "t")
	h.ok("todo", "add", "--goal", "g", "--id", "t1", "--title", "t1")
	h.ok("todo", "claim", "--goal", "g", "--todo", "t1", "--agent", "b-busy", "--local", "--lease", "30m")

	// d-idle lacks the asked-for capability; c-idle is picked.
	if _, errOut, err := h.admit("b1", []string{"--capability", "session_state_fork"}, long); err != nil {
		t.Fatalf("admit b1: %v %s", err, errOut)
	}
	if b := h.show("b1"); b.ExecutorAgent != "c-idle" {
		t.Fatalf("b1 went to %s, want c-idle", b.ExecutorAgent)
	}
	// Now nobody fits: each reason is named.
	_, errOut, err := h.admit("b2", []string{"--capability", "session_state_fork"}, long)
	for _, want := range []string{"a-nocap lacks session_state_fork, session_termination", "b-busy holds a live claim on g/t1",
		"c-idle is leased to branch b1", "d-idle lacks session_state_fork"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no idle peer: missing %q in %s", want, errOut)
		}
	}
	if exitCode(err) != 3 || strings.Contains(errOut, "src ") {
		t.Fatalf("exit %d (the source is never picked unless named): %s", exitCode(err), errOut)
	}
	// Without the extra capability d-idle fits; a named busy peer is refused.
	_, errOut, err = h.admit("b3", []string{"--executor", "b-busy"}, long)
	if exitCode(err) != 3 || !strings.Contains(errOut, "b-busy holds a live claim") {
		t.Fatalf("a busy named executor: exit %d %s", exitCode(err), errOut)
	}
	if _, errOut, err := h.admit("b3", nil, long); err != nil {
		t.Fatalf("admit b3: %v %s", err, errOut)
	}
	if b := h.show("b3"); b.ExecutorAgent != "d-idle" {
		t.Fatalf("b3 went to %s, want d-idle", b.ExecutorAgent)
	}
	h.code(2, "fork", "admit", "b4", "--source", "src", "--source-worktree", "src", "--executor", "nobody", "--authority-ref", "op", "--task", "x")
	h.ok("fork", "cancel", "b1")
	h.ok("fork", "cancel", "b3")
}

// Two admissions racing for one named peer: the lease ref's compare-and-
// swap lets exactly one through; the other is exit 3 naming the holder
// and holds nothing.
func TestForkCompetingLeases(t *testing.T) {
	h := newForkHost(t, 4, "e1")
	for round := 0; round < 3; round++ {
		ids := []string{"r" + itoa(round) + "a", "r" + itoa(round) + "b"}
		type result struct {
			id, errOut string
			code       int
		}
		done := make(chan result, 2)
		for _, id := range ids {
			go func(id string) {
				_, errOut, err := h.admit(id, []string{"--executor", "e1"}, long)
				done <- result{id, errOut, exitCode(err)}
			}(id)
		}
		var won []string
		for range ids {
			r := <-done
			switch r.code {
			case 0:
				won = append(won, r.id)
			case 3:
				if !strings.Contains(r.errOut, "leased to branch") && !strings.Contains(r.errOut, "still holds branch") {
					t.Fatalf("round %d: the loser %s does not name the holder: %s", round, r.id, r.errOut)
				}
			default:
				t.Fatalf("round %d: %s exit %d: %s", round, r.id, r.code, r.errOut)
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: %d winners %v", round, len(won), won)
		}
		var l struct {
			Branch string `json:"execution_branch_id"`
			State  string `json:"state"`
		}
		json.Unmarshal([]byte(h.git("cat-file", "blob", "refs/agentproto/fork/leases/e1:doc.json")), &l)
		if l.Branch != won[0] || l.State != "held" {
			t.Fatalf("round %d: the lease names %+v, the winner is %s", round, l, won[0])
		}
		for _, id := range ids {
			if id == won[0] {
				continue
			}
			// A loser that got as far as an admission failed closed and
			// gave its capacity back.
			if out, _, err := h.run("fork", "show", id, "--json"); err == nil && !strings.Contains(out, `"state":"failed"`) {
				t.Fatalf("round %d: the loser %s is %s", round, id, out)
			}
		}
		if active := h.git("cat-file", "blob", "refs/agentproto/fork/capacity:doc.json"); strings.Count(active, `"r`) != 1 {
			t.Fatalf("round %d: capacity holds %s", round, active)
		}
		h.ok("fork", "cancel", won[0])
	}
}

// A lease bounds execution: once it ends the branch expires, fail closed,
// its session killed, at the next fork command. Cancellation does the same
// at once. Both release the peer and the capacity.
func TestForkExpiryAndCancellation(t *testing.T) {
	h := newForkHost(t, 1, "e1")
	if _, errOut, err := h.admit("b1", []string{"--lease", "2s"}, long); err != nil {
		t.Fatalf("admit: %v %s", err, errOut)
	}
	b := h.show("b1")
	if h.sessionState(b.Session) != "running" {
		t.Fatalf("session %s is %s", b.Session, h.sessionState(b.Session))
	}
	// At the lease's end the daemon ends the branch's session itself;
	// only the session's record is read meanwhile, no fork command runs.
	waitFor(t, "the daemon to end the session at the lease's end", func() bool { return h.sessionState(b.Session) == "cleaned" })
	// Reads write nothing, and say the lease is over meanwhile.
	if late := h.show("b1"); late.State == "expired" || !late.LeaseEnded {
		t.Fatalf("show after the lease's end, before a write: %+v", late)
	}
	if ls := h.ok("fork", "ls"); !strings.Contains(ls, "lease ended") || !strings.Contains(ls, "expired at the next fork command") {
		t.Fatalf("fork ls after the lease's end: %s", ls)
	}
	// The next admission reconciles first: b1 expires and frees the capacity.
	if _, errOut, err := h.admit("b2", []string{"--lease", "30m"}, long); err != nil {
		t.Fatalf("admit after the expiry: %v %s", err, errOut)
	}
	b = h.show("b1")
	if b.State != "expired" || b.Outcome == nil || b.Outcome.Cause != "lease_ended" {
		t.Fatalf("b1 after its lease: %+v", b)
	}
	waitFor(t, "the expired branch's session to be killed", func() bool { return h.sessionState(b.Session) == "cleaned" })
	h.code(5, "fork", "settle", "b1", "--select", "--reason", "too late") // nothing held
	if out := h.ok("fork", "cancel", "b1"); !strings.Contains(out, "branch b1: expired") {
		t.Fatalf("cancel of an expired branch: %s", out)
	}

	b2 := h.show("b2")
	if b2.ExecutorAgent != "e1" || b2.State != "running" {
		t.Fatalf("b2: %+v", b2)
	}
	h.ok("fork", "cancel", "b2", "--reason", "the source finished first")
	b2 = h.show("b2")
	if b2.State != "failed" || b2.Outcome.Cause != "cancelled" {
		t.Fatalf("b2 after cancel: %+v", b2)
	}
	waitFor(t, "the cancelled branch's session to be killed", func() bool { return h.sessionState(b2.Session) == "cleaned" })
	if h.leaseState("e1") != "released" {
		t.Fatalf("lease after cancel: %s", h.leaseState("e1"))
	}
	// A lease taken away from a branch (here: released under it) fails it
	// closed too.
	if _, errOut, err := h.admit("b3", nil, long); err != nil {
		t.Fatalf("admit b3: %v %s", err, errOut)
	}
	b3 := h.show("b3")
	lease := h.git("rev-parse", "refs/agentproto/fork/leases/e1")
	must(t, h.dir, "git", "update-ref", "refs/agentproto/fork/leases/e1", h.git("rev-parse", lease+"^"), lease)
	h.code(2, "fork", "cancel", "nosuch-branch-x") // unknown, but it reconciles first
	b3 = h.show("b3")
	if b3.State != "expired" || b3.Outcome.Cause != "lease_lost" {
		t.Fatalf("b3 after losing its lease: %+v", b3)
	}
}

// The host fails half-way: the sessions daemon is stopped while the
// admission holds the lease and asks it to start the session, then killed.
// The branch fails closed at start, its peer and capacity are released,
// and once a daemon runs again the same peer takes the next branch.
func TestForkRecoversWhenTheHostFailsHalfWay(t *testing.T) {
	h := newForkHost(t, 1, "e1")
	// Stopped in the middle of recording the source's turn, the daemon
	// would hold the ledger index and every reader would wait on it: stop
	// it once that turn is in the ledger.
	waitFor(t, "the source session's turn in the ledger", func() bool {
		out, _, err := h.run("ledger", "log", "--kind", "session_settled", "--json")
		return err == nil && strings.Contains(out, h.srcSession)
	})
	daemon := daemonPid(t, h.dir)
	if err := syscall.Kill(daemon, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(daemon, syscall.SIGKILL)
	type result struct {
		errOut string
		code   int
	}
	done := make(chan result, 1)
	go func() {
		_, errOut, err := h.admit("b1", nil, long)
		done <- result{errOut, exitCode(err)}
	}()
	waitFor(t, "the admission to hold its lease", func() bool {
		out, _, err := h.run("fork", "show", "b1", "--json")
		return err == nil && strings.Contains(out, `"state":"leased"`)
	})
	waitFor(t, "the branch's worktree", func() bool {
		return strings.Contains(must(t, h.dir, "git", "worktree", "list"), "fork-b1")
	})
	time.Sleep(time.Second) // the admission is now waiting on the stopped daemon
	syscall.Kill(daemon, syscall.SIGKILL)
	r := <-done
	if r.code == 0 || !strings.Contains(r.errOut, "branch b1 failed at start (host_failed)") {
		t.Fatalf("admit with the daemon killed: exit %d %s", r.code, r.errOut)
	}
	b := h.show("b1")
	if b.State != "failed" || b.Outcome.Stage != "start" || b.Outcome.Cause != "host_failed" {
		t.Fatalf("b1: %+v", b)
	}
	if h.leaseState("e1") != "released" || strings.Contains(h.git("cat-file", "blob", "refs/agentproto/fork/capacity:doc.json"), "b1") {
		t.Fatalf("b1 still holds: lease %s, capacity %s", h.leaseState("e1"), h.git("cat-file", "blob", "refs/agentproto/fork/capacity:doc.json"))
	}
	// The source's session died with its daemon; the source attaches a new
	// one, and the next branch runs on the same peer from a new daemon.
	h.sourceSession()
	if _, errOut, err := h.admit("b2", []string{"--wait", "60s"}, `{"op":"write","path":"after.txt","content":"recovered\n"}`); err != nil {
		t.Fatalf("admit after recovery: %v %s", err, errOut)
	}
	b2 := h.show("b2")
	if b2.State != "held_result" || b2.ExecutorAgent != "e1" || h.git("show", b2.Outcome.ResultCommit+":after.txt") != "recovered" {
		t.Fatalf("b2: %+v", b2)
	}
	if b.Session != "" && h.sessionState(b.Session) == "running" {
		t.Fatalf("the failed branch left a running session %s", b.Session)
	}
}

// fork is in the supervisor's decision set only on a clone whose fork mode
// is on and whose host check passes; there it stays proposal_only.
func TestForkJoinsTheDecisionSetOnlyWhenOn(t *testing.T) {
	h := newForkHost(t, 0, "e1")
	h.ok("peer", "register", "sup", "--adapter", "scripted")
	h.ok("goal", "new", "g", "--title", "t")
	h.ok("goal", "configure", "--goal", "g", "--supervisor-agent", "sup", "--apply")
	decision := writeJSON(t, map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d-fork", "kind": "fork",
		"reason_codes": []string{"parallel_option"}, "evidence_refs": []string{"commit:abc"}, "source": "src", "target": "e1"})
	propose := []string{"supervisor", "event", "propose", "--goal", "g", "--agent", "sup", "--decision-json", decision, "--apply"}
	for _, mode := range []string{"off", "dry-run"} {
		must(t, h.dir, "git", "config", "--local", "agentproto.fork.mode", mode)
		if e := h.code(5, propose...); !strings.Contains(e, "fork is not in this clone's decision set: its fork mode is "+mode) {
			t.Fatalf("mode %s: %s", mode, e)
		}
	}
	// The MCP server admits fork by the same gate: refused while off.
	cs := mcpConnect(t, h.dir)
	forkDoc := map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d-mcp", "kind": "fork",
		"reason_codes": []string{"parallel_option"}, "evidence_refs": []string{"commit:abc"}, "source": "src", "target": "e1"}
	if c := callTool(t, cs, "supervisor_propose", map[string]any{"goal": "g", "agent": "sup", "decision": forkDoc}); !c.IsError ||
		c.Doc["exit_code"] != float64(5) || !strings.Contains(c.Text, "its fork mode is dry-run") {
		t.Fatalf("mcp propose while dry-run: %+v", c)
	}
	must(t, h.dir, "git", "config", "--local", "agentproto.fork.mode", "on")
	bad := writeJSON(t, map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d-bad", "kind": "fork",
		"reason_codes": []string{"x"}, "evidence_refs": []string{"e"}, "source": "src", "message": "hi"})
	if e := h.code(2, "supervisor", "event", "propose", "--goal", "g", "--agent", "sup", "--decision-json", bad); !strings.Contains(e, "$.message does not belong in a fork decision") {
		t.Fatal(e)
	}
	out := h.ok(propose...)
	if !strings.Contains(out, `"execution_mode": "proposal_only"`) || !strings.Contains(out, `"session_state_fork"`) {
		t.Fatalf("the fork proposal: %s", out)
	}
	if c := mustTool(t, cs, "supervisor_propose", map[string]any{"goal": "g", "agent": "sup", "decision": forkDoc}); !strings.Contains(mustJSON(c.Doc), `"session_state_fork"`) {
		t.Fatalf("mcp propose once on: %+v", c.Doc)
	}
	// A peer set without session_state_fork fails the host check.
	t.Run("no peer can fork", func(t *testing.T) {
		h2 := &forkHost{t: t, dir: newRepo(t)}
		h2.ok("peer", "register", "src", "--adapter", "scripted", "--capability", "session_termination")
		h2.ok("peer", "register", "sup", "--adapter", "scripted", "--capability", "session_termination")
		h2.ok("peer", "register", "e1", "--adapter", "scripted", "--capability", "session_termination")
		h2.ok("goal", "new", "g", "--title", "t")
		h2.ok("goal", "configure", "--goal", "g", "--supervisor-agent", "sup", "--apply")
		must(t, h2.dir, "git", "config", "--local", "agentproto.fork.mode", "on")
		if e := h2.code(5, propose...); !strings.Contains(e, "no registered peer declares session_state_fork") {
			t.Fatal(e)
		}
	})
}
