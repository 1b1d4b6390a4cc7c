package peers

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

func testState() (*State, *SupervisorConfig) {
	st := &State{Peers: map[string]*Peer{"sup": {Agent: "sup"}, "a": {Agent: "a"}, "b": {Agent: "b"}, "c": {Agent: "c"}}}
	return st, &SupervisorConfig{SupervisorAgent: "sup", SupervisedAgents: []string{"a", "b"}}
}

func TestDecisionValidation(t *testing.T) {
	base := func() Decision {
		return Decision{Schema: SchemaDecision, DecisionID: "d1", Kind: KindObserve, ReasonCodes: []string{"all_green"}, EvidenceRefs: []string{"ev1"}}
	}
	cases := []struct {
		name string
		mod  func(*Decision)
		want string
		kind fault.Kind
	}{
		{"observe ok", func(d *Decision) {}, "", 0},
		{"inject ok", func(d *Decision) { d.Kind, d.Target, d.Message = KindInject, "a", "please rebase" }, "", 0},
		{"handoff ok", func(d *Decision) { d.Kind, d.Source, d.Target, d.StateRef = KindHandoff, "a", "b", "refs/x" }, "", 0},
		{"discard ok", func(d *Decision) { d.Kind, d.Target, d.StateRef = KindDiscard, "b", "refs/y" }, "", 0},
		{"wrong schema", func(d *Decision) { d.Schema = "v9" }, "$.schema", fault.Invalid},
		{"no id", func(d *Decision) { d.DecisionID = "" }, "$.decision_id is required", fault.Invalid},
		{"unknown kind", func(d *Decision) { d.Kind = "fork" }, "not one of observe, inject, handoff, discard", fault.Invalid},
		{"no reasons", func(d *Decision) { d.ReasonCodes = nil }, "$.reason_codes", fault.Invalid},
		{"bad reason", func(d *Decision) { d.ReasonCodes = []string{"Not OK"} }, "$.reason_codes[0]", fault.Invalid},
		{"no evidence", func(d *Decision) { d.EvidenceRefs = nil }, "$.evidence_refs", fault.Invalid},
		{"inject without target", func(d *Decision) { d.Kind, d.Message = KindInject, "hi" }, "$.target is required for a inject", fault.Invalid},
		{"inject without message", func(d *Decision) { d.Kind, d.Target = KindInject, "a" }, "$.message is required", fault.Invalid},
		{"handoff without source", func(d *Decision) { d.Kind, d.Target, d.StateRef = KindHandoff, "b", "r" }, "$.source is required", fault.Invalid},
		{"handoff without state", func(d *Decision) { d.Kind, d.Source, d.Target = KindHandoff, "a", "b" }, "$.state_ref is required", fault.Invalid},
		{"discard without target", func(d *Decision) { d.Kind, d.StateRef = KindDiscard, "r" }, "$.target is required", fault.Invalid},
		{"discard without state", func(d *Decision) { d.Kind, d.Target = KindDiscard, "a" }, "$.state_ref is required", fault.Invalid},
		{"message on observe", func(d *Decision) { d.Message = "x" }, "$.message does not belong", fault.Invalid},
		{"targets the supervisor", func(d *Decision) { d.Kind, d.Target, d.Message = KindInject, "sup", "x" }, "names the supervisor itself", fault.Refused},
		{"targets an unsupervised peer", func(d *Decision) { d.Kind, d.Target, d.Message = KindInject, "c", "x" }, "not a peer this supervisor observes", fault.Refused},
	}
	st, cfg := testState()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := base()
			c.mod(&d)
			err := d.Validate(st, cfg)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || fault.KindOf(err) != c.kind {
				t.Fatalf("err = %v (kind %d), want %q kind %d", err, fault.KindOf(err), c.want, c.kind)
			}
		})
	}
}

func TestCredentialShapesAreRefusedByPath(t *testing.T) {
	secrets := map[string]string{
		"github": "ghp_" + strings.Repeat("a1B2", 9),
		"pat":    "github_pat_" + strings.Repeat("x", 30),
		"aws":    "AKIAABCDEFGHIJKLMNOP",
		"openai": "sk-" + strings.Repeat("Z9", 15),
		"slack":  "xoxb-1234567890-abcdefghij",
		"key":    "-----BEGIN OPENSSH PRIVATE KEY-----",
		"bearer": "Authorization: Bearer abcdefghijklmnop1234",
		"jwt":    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	}
	for name, secret := range secrets {
		t.Run(name, func(t *testing.T) {
			doc := `{"schema":"supervisor_decision_v0","decision_id":"d1","kind":"inject","reason_codes":["x"],"evidence_refs":["e","` + secret + `"],"target":"a","message":"m"}`
			var d Decision
			err := DecodeStrict([]byte(doc), "the decision", &d)
			if err == nil || fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), "$.evidence_refs[1]") {
				t.Fatalf("err = %v", err)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatal("the error echoes the secret")
			}
		})
	}
	var d Decision
	if err := DecodeStrict([]byte(`{"schema":"x","extra":1}`), "the decision", &d); err == nil || !strings.Contains(err.Error(), `unknown field "extra"`) {
		t.Fatalf("unknown field: %v", err)
	}
	long := `{"message":"` + strings.Repeat("m", MaxMessage+1) + `"}`
	if err := DecodeStrict([]byte(long), "the decision", &d); err == nil || !strings.Contains(err.Error(), "$.message is") {
		t.Fatalf("long message: %v", err)
	}
	if err := DecodeStrict([]byte(strings.Repeat(" ", MaxInput+1)), "the decision", &d); err == nil {
		t.Fatal("oversized input accepted")
	}
}

func TestReceiptCLIRefusesExecuted(t *testing.T) {
	st := &State{Proposals: map[string][]Proposal{"g": {{Decision: Decision{DecisionID: "d1"}}}}}
	r := ReceiptDoc{Schema: SchemaReceipt, ReceiptID: "r1", DecisionID: "d1", Status: StatusExecuted, Reason: "done", EvidenceRefs: []string{"e"}}
	if err := r.ValidateCLI(st, "g"); fault.KindOf(err) != fault.Refused {
		t.Fatalf("executed on the CLI path: %v", err)
	}
	r.Status = StatusRejected
	if err := r.ValidateCLI(st, "g"); err != nil {
		t.Fatal(err)
	}
	r.DecisionID = "nope"
	if err := r.ValidateCLI(st, "g"); err == nil {
		t.Fatal("receipt for an unknown decision accepted")
	}
}
