package e2e

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden files")

// golden compares JSON output with a file, after blanking what changes from
// run to run (times, session ids, temp paths).
func golden(t *testing.T, name, got string) {
	t.Helper()
	norm := regexp.MustCompile(`"(time|last_activity|lease_until)": "[^"]*"`).ReplaceAllString(got, `"$1": "<time>"`)
	norm = regexp.MustCompile(`s-[0-9a-f]{12}`).ReplaceAllString(norm, "s-<id>")
	norm = regexp.MustCompile(`[0-9a-f]{40}`).ReplaceAllString(norm, "<sha>")
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		os.WriteFile(path, []byte(norm), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-golden)", err)
	}
	if string(want) != norm {
		t.Fatalf("%s differs:\n--- want\n%s\n--- got\n%s", name, want, norm)
	}
}

func writeJSON(t *testing.T, v any) string {
	b, _ := json.Marshal(v)
	p := filepath.Join(t.TempDir(), "in.json")
	os.WriteFile(p, b, 0o644)
	return p
}

func TestPeerSupervisorProtocol(t *testing.T) {
	dir := newRepo(t)
	run := func(args ...string) (string, string, error) {
		return sh(t, dir, nil, "git", append([]string{"agentproto"}, args...)...)
	}
	ok := func(args ...string) string {
		t.Helper()
		out, errOut, err := run(args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, errOut)
		}
		return out
	}
	code := func(want int, args ...string) string {
		t.Helper()
		out, errOut, err := run(args...)
		if got := exitCode(err); got != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, got, want, out, errOut)
		}
		return errOut
	}

	// Peers: capabilities default to what the adapter declares.
	ok("peer", "register", "sup", "--adapter", "scripted")
	ok("peer", "register", "alice", "--adapter", "scripted", "--quota-turns", "2")
	ok("peer", "register", "bob", "--adapter", "scripted", "--capability", "session_termination")
	if out := ok("peer", "ls"); !strings.Contains(out, "alice            scripted     quota=2          session_interrupt,session_message_injection") ||
		!strings.Contains(out, "sup              scripted     quota=unlimited  session_interrupt") {
		t.Fatalf("peer ls:\n%s", out)
	}
	code(2, "peer", "register", "eve", "--adapter", "scripted", "--capability", "root_access")
	ok("goal", "new", "g1", "--title", "Ship the parser")
	ok("todo", "add", "--goal", "g1", "--id", "lexer", "--title", "Write the lexer")
	ok("todo", "add", "--goal", "g1", "--id", "parser", "--title", "Write the parser")

	// Configuration: dry run writes nothing; the supervisor must be a peer
	// and may not supervise itself.
	before := ok("ledger", "log", "--json")
	out := ok("goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--supervised-agent", "alice", "--supervised-agent", "bob")
	if !strings.Contains(out, `"schema": "peer_supervisor_v0"`) || !strings.Contains(out, `"execution_mode": "proposal_only"`) {
		t.Fatalf("configure: %s", out)
	}
	if ok("ledger", "log", "--json") != before {
		t.Fatal("configure without --execute wrote to the ledger")
	}
	code(2, "goal", "configure", "--goal-id", "g1", "--supervisor-agent", "nobody", "--execute")
	code(2, "goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--supervised-agent", "sup", "--execute")
	code(5, "supervisor", "observe", "--goal-id", "g1", "--agent-id", "sup") // disabled until configured
	ok("goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--supervised-agent", "alice", "--supervised-agent", "bob", "--execute")

	// Claims and authority: a peer claims only for itself.
	ok("todo", "claim", "--goal", "g1", "--todo", "lexer", "--agent", "alice", "--local", "--lease", "30m")
	if e := code(5, "todo", "claim", "--goal", "g1", "--todo", "parser", "--agent", "alice", "--local", "--as", "sup"); !strings.Contains(e, "a peer claims only for itself") {
		t.Fatal(e)
	}
	if e := code(5, "todo", "claim", "--goal", "g1", "--todo", "lexer", "--agent", "bob", "--local"); !strings.Contains(e, "claimed by alice") {
		t.Fatal(e)
	}
	ok("todo", "claim", "--goal", "g1", "--todo", "parser", "--agent", "bob", "--local", "--lease", "1ns")
	ok("todo", "claim", "--goal", "g1", "--todo", "parser", "--agent", "alice", "--local") // bob's lease expired

	// The degraded packet: bob has no status and no evidence.
	ok("peer", "status", "alice", "--goal", "g1", "--state", "working", "--next-action", "finish the lexer tests")
	ok("evidence", "add", "--goal", "g1", "--agent", "alice", "--ref", "commit:abc123", "--summary", "lexer handles strings")
	packet := ok("supervisor", "observe", "--goal-id", "g1", "--agent-id", "sup")
	golden(t, "observe-degraded.json", packet)
	if got := ok("supervisor", "observe", "--goal", "g1", "--agent", "sup", "--jq", ".schema + \" \" + .goal.id"); got != "supervisor_observation_v0 g1\n" {
		t.Fatalf("observe --jq: %q", got)
	}
	code(2, "supervisor", "observe", "--goal", "g1", "--agent", "sup", "--jq", ".[") // a filter that does not parse
	if strings.Contains(packet, "quota") {
		t.Fatal("the packet exposes another peer's quota")
	}
	code(5, "supervisor", "observe", "--goal-id", "g1", "--agent-id", "alice") // not the supervisor

	// A live session for alice; the complete packet.
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "hello")
	if err != nil {
		t.Fatal(errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")
	ok("peer", "attach", "alice", "--session", id)
	// bob works in a worktree with one commit: the packet shows it as an effect.
	ok("worktree", "new", "bob-wt", "--no-setup")
	wt := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "bob-wt")
	os.WriteFile(filepath.Join(wt, "parser.go"), []byte("package parser\n"), 0o644)
	must(t, wt, "git", "add", "parser.go")
	must(t, wt, "git", "commit", "-q", "-m", "parser skeleton")
	ok("peer", "status", "bob", "--goal", "g1", "--state", "blocked", "--next-action", "wait for the lexer", "--workspace", "bob-wt")
	ok("evidence", "add", "--goal", "g1", "--agent", "bob", "--ref", "issue:12", "--summary", "parser blocked on token type")
	golden(t, "observe-complete.json", ok("supervisor", "observe", "--goal-id", "g1", "--agent-id", "sup"))

	// Quota: alice spent her two turns (the liveness ping and the prompt);
	// nobody else may check it.
	if e := code(5, "peer", "quota-guard", "alice"); !strings.Contains(e, "spent its quota: 2 of 2 turns") {
		t.Fatal(e)
	}
	code(5, "peer", "quota-guard", "alice", "--as", "sup")
	ok("peer", "quota-guard", "bob")

	// Proposals: validated, idempotent, conflicts refused.
	decision := map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d-1", "kind": "inject",
		"reason_codes": []string{"blocked_peer"}, "evidence_refs": []string{"issue:12"}, "target": "alice", "message": "bob is blocked on the token type: please publish it first"}
	f := writeJSON(t, decision)
	ok("supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", f)
	if strings.Contains(ok("ledger", "log", "--json"), "supervisor_proposed") {
		t.Fatal("propose without --execute recorded")
	}
	ok("supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", f, "--execute")
	_, errOut, _ = run("supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", f, "--execute")
	if !strings.Contains(errOut, "already recorded with the same content") {
		t.Fatalf("replay: %s", errOut)
	}
	decision["message"] = "something else"
	code(3, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", writeJSON(t, decision), "--execute")
	decision["configure"] = map[string]any{"supervised_agents": []string{"bob"}}
	if e := code(2, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", writeJSON(t, decision)); !strings.Contains(e, `unknown field "configure"`) {
		t.Fatal(e)
	}
	delete(decision, "configure")
	decision["decision_id"], decision["message"] = "d-2", "use token ghp_"+strings.Repeat("A1b2", 9)
	if e := code(5, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", writeJSON(t, decision)); !strings.Contains(e, "$.message looks like a GitHub token") || strings.Contains(e, "ghp_") {
		t.Fatal(e)
	}
	f2 := writeJSON(t, map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d-3", "kind": "discard",
		"reason_codes": []string{"dead_branch"}, "evidence_refs": []string{"commit:abc123"}, "target": "bob", "state_ref": "refs/heads/wt/bob"})
	ok("supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", f2, "--execute")

	// Receipts: the CLI writes rejected or failed, never executed.
	exec := writeJSON(t, map[string]any{"schema": "supervisor_receipt_v0", "receipt_id": "r-1", "decision_id": "d-1", "status": "executed", "reason": "done", "evidence_refs": []string{"x"}})
	if e := code(5, "supervisor", "event", "receipt", "--goal-id", "g1", "--agent-id", "sup", "--receipt-json", exec, "--execute"); !strings.Contains(e, "only be written by the host adapter path") {
		t.Fatal(e)
	}
	rej := writeJSON(t, map[string]any{"schema": "supervisor_receipt_v0", "receipt_id": "r-2", "decision_id": "d-3", "status": "rejected", "reason": "no termination host", "evidence_refs": []string{"commit:abc123"}})
	ok("supervisor", "event", "receipt", "--goal-id", "g1", "--agent-id", "sup", "--receipt-json", rej, "--execute")

	// The inject canary: dry run calls nothing; disabled by default; then
	// one send, and a second execute suppressed.
	flags := []string{"supervisor", "inject", "--goal-id", "g1", "--agent-id", "sup", "--decision-id", "d-1", "--authority-ref", "ticket:42", "--rollback-mode", "not_reversible", "--rollback-policy-ref", "policy:inject-v0"}
	if out, errOut, _ := run(flags...); !strings.Contains(errOut, "would inject decision d-1 into session "+id) ||
		!strings.HasPrefix(out, "{\n  \"schema\": \"supervisor_inject_plan_v0\"") || !strings.Contains(out, `"session": "`+id+`"`) {
		t.Fatal(out, errOut)
	}
	if e := code(5, append(flags, "--execute")...); !strings.Contains(e, "git config --local agentproto.supervisor.inject enabled") {
		t.Fatal(e)
	}
	code(5, "supervisor", "inject", "--goal-id", "g1", "--agent-id", "sup", "--decision-id", "d-3", "--authority-ref", "a", "--rollback-mode", "not_reversible", "--rollback-policy-ref", "p", "--execute")
	code(2, "supervisor", "inject", "--goal-id", "g1", "--agent-id", "sup", "--decision-id", "d-1", "--authority-ref", "a", "--rollback-mode", "undo", "--rollback-policy-ref", "p")
	must(t, dir, "git", "config", "--local", "agentproto.supervisor.inject", "enabled")
	out = ok(append(flags, "--execute")...)
	if !strings.Contains(out, `"status": "executed"`) || !strings.Contains(out, `"verified_capabilities"`) || !strings.Contains(out, `"mode": "not_reversible"`) {
		t.Fatal(out)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")
	if o := must(t, dir, "git", "agentproto", "sessions", "output", id); !strings.Contains(o, "echo: bob is blocked on the token type") {
		t.Fatalf("the message did not reach the session:\n%s", o)
	}
	if out, errOut, _ := run(append(flags, "--execute")...); !strings.Contains(errOut, "already executed") || !strings.Contains(out, `"already_executed"`) {
		t.Fatal(out, errOut)
	}
	var recs []struct{ Turns int }
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--json")), &recs)
	if len(recs) != 1 || recs[0].Turns != 3 {
		t.Fatalf("the second execute sent again: %+v", recs)
	}
	list := ok("supervisor", "event", "list", "--goal-id", "g1", "--agent-id", "sup", "--json")
	if !strings.Contains(list, `"decision_id":"d-1","kind":"inject","target":"alice"`) || !strings.Contains(list, `"receipts":["executed:d-1-executed"],"executed":true`) || !strings.Contains(list, `"receipts":["rejected:r-2"],"executed":false`) {
		t.Fatalf("list: %s", list)
	}
	if p := ok("supervisor", "prompt", "--goal-id", "g1", "--agent-id", "sup"); !strings.Contains(p, "git agentproto peer quota-guard sup") || !strings.Contains(p, "supervisor observe --goal g1") {
		t.Fatal(p)
	}
	// Clearing disables it.
	ok("goal", "configure", "--goal-id", "g1", "--clear-supervisor", "--execute")
	code(5, "supervisor", "observe", "--goal-id", "g1", "--agent-id", "sup")
}
