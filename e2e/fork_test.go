package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forkHost is a repository with the fork canary on: a source peer with a
// live scripted session in its own worktree, and executor peers.
type forkHost struct {
	t   *testing.T
	dir string
	src string // the source worktree's path
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
	h.sourceSession()
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

func (h *forkHost) ledgerCount() int {
	return strings.Count(h.ok("ledger", "log", "--json"), `"kind":`)
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
