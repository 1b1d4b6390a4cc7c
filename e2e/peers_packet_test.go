package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

type packet struct {
	Schema    string `json:"schema"`
	Warnings  []string
	UserGates []struct{ ID, Question, Opened string } `json:"user_gates"`
	ForkInbox []struct {
		Branch, State, Since string
		SourceAgent          string `json:"source_agent"`
		ResultRef            string `json:"result_ref"`
	} `json:"fork_inbox"`
	Peers []struct {
		Agent    string
		Contract struct{ Via, By []string }
	}
}

func observePacket(t *testing.T, h *forkHost) packet {
	t.Helper()
	out := h.ok("supervisor", "observe", "--goal", "g1", "--agent", "sup")
	var p packet
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("packet: %v\n%s", err, out)
	}
	return p
}

// The packet carries what the supervisor must weigh: the goal's open user
// gates (opened and closed through the CLI), each peer's interaction
// contract as registered, and an inbox row per live fork branch of the
// goal's agents, with the result a held branch waits with.
func TestObservationPacketGatesContractsForks(t *testing.T) {
	h := newForkHost(t, 2, "e1")
	h.ok("peer", "register", "sup", "--adapter", "scripted", "--address-via", "inject", "--address-via", "handoff", "--addressed-by", "user")
	h.code(2, "peer", "register", "bad", "--adapter", "scripted", "--address-via", "email")
	h.code(2, "peer", "register", "bad", "--adapter", "scripted", "--addressed-by", "user")
	h.ok("goal", "new", "g1", "--title", "Ship it")
	h.ok("goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--supervised-agent", "src", "--supervised-agent", "e1", "--execute")

	h.ok("goal", "gate", "add", "--goal", "g1", "--id", "license", "--question", "MIT or Apache-2.0?")
	h.ok("goal", "gate", "add", "--goal", "g1", "--id", "launch", "--question", "Launch on Monday?")
	before := h.ledgerRecords("goal_gate_")
	h.code(2, "goal", "gate", "add", "--goal", "g1", "--id", "empty", "--question", " ")
	h.code(2, "goal", "gate", "add", "--goal", "nope", "--id", "x", "--question", "q?")
	h.code(2, "goal", "gate", "close", "--goal", "g1", "--id", "unknown", "--answer", "yes")
	if h.ledgerRecords("goal_gate_") != before {
		t.Fatal("a refused gate wrote to the ledger")
	}
	p := observePacket(t, h)
	if p.Schema != "supervisor_observation_v0" || len(p.UserGates) != 2 || p.UserGates[0].ID != "license" ||
		p.UserGates[0].Question != "MIT or Apache-2.0?" || p.UserGates[1].ID != "launch" || len(p.ForkInbox) != 0 {
		t.Fatalf("packet before: %+v", p)
	}
	var srcPeer bool
	for _, pv := range p.Peers {
		if pv.Agent == "src" {
			srcPeer = len(pv.Contract.Via) == 0 && len(pv.Contract.By) == 0
		}
	}
	if !srcPeer || !strings.Contains(strings.Join(p.Warnings, "\n"), "src states no interaction contract") {
		t.Fatalf("a peer without a contract: %+v", p)
	}
	h.ok("goal", "gate", "close", "--goal", "g1", "--id", "license", "--answer", "Apache-2.0")
	h.code(3, "goal", "gate", "close", "--goal", "g1", "--id", "license", "--answer", "MIT")

	b := heldBranch(t, h)
	p = observePacket(t, h)
	if len(p.UserGates) != 1 || p.UserGates[0].ID != "launch" {
		t.Fatalf("closed gate still open: %+v", p.UserGates)
	}
	if len(p.ForkInbox) != 1 {
		t.Fatalf("fork inbox: %+v", p.ForkInbox)
	}
	// The MCP server's packet is the CLI's, the inbox included.
	c := mustTool(t, mcpConnect(t, h.dir), "supervisor_observe", map[string]any{"goal": "g1", "agent": "sup"})
	if inbox, _ := c.Doc["fork_inbox"].([]any); len(inbox) != 1 || !strings.Contains(mustJSON(inbox), `"branch":"`+p.ForkInbox[0].Branch+`"`) {
		t.Fatalf("mcp supervisor_observe fork_inbox: %+v", c.Doc["fork_inbox"])
	}
	row := p.ForkInbox[0]
	if row.Branch != "b1" || row.State != "held_result" || row.SourceAgent != "src" || row.ResultRef != b.ResultRef || row.ResultRef == "" || row.Since == "" {
		t.Fatalf("fork row %+v, branch %+v", row, b)
	}
	h.ok("fork", "settle", "b1", "--discard", "--reason", "not needed")
	if p = observePacket(t, h); len(p.ForkInbox) != 0 {
		t.Fatalf("a settled branch is still in the inbox: %+v", p.ForkInbox)
	}
}

// A registered contract is what the packet shows, sorted.
func TestPeerContractInPacket(t *testing.T) {
	h := newForkHost(t, 0)
	h.ok("peer", "register", "sup", "--adapter", "scripted")
	h.ok("peer", "register", "w", "--adapter", "scripted", "--address-via", "todo", "--address-via", "inject", "--addressed-by", "supervisor", "--addressed-by", "src")
	h.ok("goal", "new", "g1", "--title", "Ship it")
	h.ok("goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--supervised-agent", "w", "--execute")
	for _, pv := range observePacket(t, h).Peers {
		if pv.Agent == "w" && strings.Join(pv.Contract.Via, ",") == "inject,todo" && strings.Join(pv.Contract.By, ",") == "src,supervisor" {
			return
		}
	}
	t.Fatal("the packet lacks w's contract")
}

// A proposal the target's contract rules out is refused and writes
// nothing: a way the peer did not list, or a supervisor it does not take.
func TestProposalHonoursThePeersContract(t *testing.T) {
	h := newForkHost(t, 0)
	h.ok("peer", "register", "sup", "--adapter", "scripted")
	h.ok("peer", "register", "todo-only", "--adapter", "scripted", "--address-via", "todo")
	h.ok("peer", "register", "user-only", "--adapter", "scripted", "--address-via", "inject", "--addressed-by", "user")
	h.ok("peer", "register", "open", "--adapter", "scripted", "--address-via", "inject", "--addressed-by", "sup")
	h.ok("goal", "new", "g1", "--title", "Ship it")
	h.ok("goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup",
		"--supervised-agent", "todo-only", "--supervised-agent", "user-only", "--supervised-agent", "open", "--execute")
	inject := func(id, target string) string {
		return writeJSON(t, map[string]any{"schema": "supervisor_decision_v0", "decision_id": id, "kind": "inject",
			"reason_codes": []string{"stalled"}, "evidence_refs": []string{"packet"}, "target": target, "message": "rebase on main"})
	}
	before := h.ledgerRecords("supervisor_proposed")
	if e := h.code(5, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", inject("d-1", "todo-only"), "--execute"); !strings.Contains(e, "todo-only's interaction contract does not take inject (it is addressed via todo)") {
		t.Fatalf("inject to a todo-only peer: %s", e)
	}
	if e := h.code(5, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", inject("d-2", "user-only"), "--execute"); !strings.Contains(e, "does not let sup address it (only user)") {
		t.Fatalf("inject to a user-only peer: %s", e)
	}
	if h.ledgerRecords("supervisor_proposed") != before {
		t.Fatal("a refused proposal wrote to the ledger")
	}
	h.ok("supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", inject("d-3", "open"), "--execute")
	if h.ledgerRecords("supervisor_proposed") != before+1 {
		t.Fatal("the admitted proposal was not recorded")
	}
	// A handoff takes the source's work: its contract counts as well.
	handoff := writeJSON(t, map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d-4", "kind": "handoff",
		"reason_codes": []string{"stalled"}, "evidence_refs": []string{"packet"}, "source": "todo-only", "target": "open", "state_ref": "commit:abc"})
	if e := h.code(5, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", handoff, "--execute"); !strings.Contains(e, "todo-only's interaction contract does not take handoff") {
		t.Fatalf("a handoff of a todo-only peer's work: %s", e)
	}
}
