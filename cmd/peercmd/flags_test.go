package peercmd

import (
	"testing"
	"time"

	"github.com/agentproto/agentproto/cmd/cmdutil/cmdtest"
)

func TestRegisterFlags(t *testing.T) {
	o := cmdtest.Capture(t, NewCmdRegister, "a1", "--adapter", "exec", "--capability", "c1", "--capability", "c2",
		"--quota-turns", "7", "--session", "s-1", "--address-via", "inject", "--addressed-by", "supervisor", "--json")
	if o.Agent != "a1" || o.Adapter != "exec" || len(o.Capabilities) != 2 || o.QuotaTurns != 7 || o.Session != "s-1" || !o.JSON {
		t.Fatalf("register options %+v", o)
	}
	if c := o.contract(); c == nil || c.Via[0] != "inject" || c.By[0] != "supervisor" {
		t.Fatalf("contract %+v", c)
	}
	if c := cmdtest.Capture(t, NewCmdRegister, "a1").contract(); c != nil {
		t.Fatalf("no contract flag, contract %+v", c)
	}
}

func TestPeerVerbsFlags(t *testing.T) {
	if o := cmdtest.Capture(t, NewCmdAttach, "a1", "--session", "s-2"); o.Agent != "a1" || o.Session != "s-2" {
		t.Fatalf("attach options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdLs, "--json"); !o.JSON {
		t.Fatalf("ls options %+v", o)
	}
	st := cmdtest.Capture(t, NewCmdStatus, "a1", "--goal", "g", "--state", "blocked", "--next-action", "ask", "--workspace", "wp1", "--handoff", "h")
	if s := st.Status; s.Agent != "a1" || s.Goal != "g" || s.State != "blocked" || s.NextAction != "ask" || s.Workspace != "wp1" || s.Handoff != "h" {
		t.Fatalf("status options %+v", s)
	}
	if o := cmdtest.Capture(t, NewCmdQuotaGuard, "a1", "--as", "a2"); o.Agent != "a1" || o.As != "a2" {
		t.Fatalf("quota-guard options %+v", o)
	}
}

func TestGoalVerbsFlags(t *testing.T) {
	if o := cmdtest.Capture(t, NewCmdGoalNew, "g1", "--title", "T"); o.ID != "g1" || o.Title != "T" {
		t.Fatalf("goal new options %+v", o)
	}
	c := cmdtest.Capture(t, NewCmdConfigure, "--goal-id", "g1", "--supervisor-agent", "s", "--supervised-agent", "a", "--execute")
	if c.Goal != "g1" || c.Supervisor != "s" || len(c.Supervised) != 1 || !c.Execute || c.Clear {
		t.Fatalf("configure options %+v", c)
	}
	if o := cmdtest.Capture(t, NewCmdGateAdd, "--goal", "g1", "--id", "q", "--question", "ship?"); o.Goal != "g1" || o.ID != "q" || o.Question != "ship?" {
		t.Fatalf("gate add options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdGateClose, "--goal", "g1", "--id", "q", "--answer", "yes"); o.Answer != "yes" {
		t.Fatalf("gate close options %+v", o)
	}
}

func TestTodoVerbsFlags(t *testing.T) {
	c := cmdtest.Capture(t, NewCmdClaim, "--goal", "g", "--todo", "t", "--agent", "a", "--as", "b", "--local")
	if cl := c.Claim; cl.Goal != "g" || cl.Todo != "t" || cl.Agent != "a" || cl.As != "b" || !cl.Local || cl.Lease != 30*time.Minute {
		t.Fatalf("claim options %+v", cl)
	}
	if r := cmdtest.Capture(t, NewCmdRelease, "--goal", "g", "--todo", "t", "--agent", "a"); r.Claim.Todo != "t" || r.Claim.Local {
		t.Fatalf("release options %+v", r.Claim)
	}
	if o := cmdtest.Capture(t, NewCmdTodoAdd, "--goal", "g", "--id", "t", "--title", "T", "--json"); o.ID != "t" || !o.JSON {
		t.Fatalf("todo add options %+v", o)
	}
	e := cmdtest.Capture(t, NewCmdEvidenceAdd, "--goal", "g", "--agent", "a", "--ref", "abc", "--summary", "ok")
	if e.Evidence.Ref != "abc" || e.Evidence.Summary != "ok" {
		t.Fatalf("evidence options %+v", e.Evidence)
	}
}

func TestSupervisorVerbsFlags(t *testing.T) {
	if o := cmdtest.Capture(t, NewCmdPrompt, "--goal-id", "g", "--agent-id", "s"); o.Goal != "g" || o.Agent != "s" {
		t.Fatalf("prompt options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdObserve, "--goal-id", "g", "--agent-id", "s"); o.Goal != "g" || o.Agent != "s" {
		t.Fatalf("observe options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdPropose, "--goal-id", "g", "--agent-id", "s", "--decision-json", "d.json", "--execute"); o.File != "d.json" || !o.Execute {
		t.Fatalf("propose options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdReceipt, "--goal-id", "g", "--agent-id", "s", "--receipt-json", "r.json"); o.File != "r.json" || o.Execute {
		t.Fatalf("receipt options %+v", o)
	}
	i := cmdtest.Capture(t, NewCmdInject, "--goal-id", "g", "--agent-id", "s", "--decision-id", "d1", "--authority-ref", "a",
		"--rollback-mode", "not_reversible", "--rollback-policy-ref", "p", "--execute")
	if r := i.Request; r.Goal != "g" || r.Agent != "s" || r.DecisionID != "d1" || r.RollbackMode != "not_reversible" || !i.Execute {
		t.Fatalf("inject options %+v", i)
	}
}
