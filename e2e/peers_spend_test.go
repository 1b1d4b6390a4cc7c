package e2e

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/spend"
)

// spendPacket is the spend the observation packet carries.
type spendPacket struct {
	Spend struct {
		Plans map[string]spend.Total `json:"plans"`
		Today spend.Total            `json:"today"`
		All   spend.Total            `json:"all"`
	} `json:"spend"`
	Peers []struct {
		Agent   string
		Spend   spend.Total
		Effects []struct{ Kind, Ref, Summary string }
	}
}

// The observation packet, from the CLI and the MCP server alike, shows
// what each peer's sessions cost, what each plan cost (its executors and
// its supervisor's own report together), today's and all spend; a peer
// whose agent reported nothing is unknown, not $0.
func TestObservationPacketShowsSpend(t *testing.T) {
	dir := newRepo(t)
	day := spend.Day(time.Now())
	writeConfig(t, dir+"/agentproto.toml", "[prices.\"m\"]\ninput = 3.0\noutput = 15.0\n")
	ok := func(args ...string) string {
		t.Helper()
		return must(t, dir, "git", append([]string{"agentproto"}, args...)...)
	}
	for _, p := range []string{"sup", "alice", "bob"} {
		ok("peer", "register", p, "--adapter", "scripted")
	}
	ok("goal", "new", "g1", "--title", "Ship it")
	ok("goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--supervised-agent", "alice", "--supervised-agent", "bob", "--execute")
	counted, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--dir", dir, "--label", "demo/WP1", "--prompt",
		script(`{"op":"usage","usage":{"model":"m","input":2000,"output":100,"final":true}}`, `{"op":"say","text":"done"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	silent, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", script(`{"op":"say","text":"no usage"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", counted, silent, "--timeout", "20s")
	ok("peer", "attach", "alice", "--session", counted)
	ok("peer", "attach", "bob", "--session", silent)
	ok("spend", "report", "demo", "--id", "sup-1", "--usd", "0.5", "--input", "100000")

	cli := ok("supervisor", "observe", "--goal", "g1", "--agent", "sup")
	var p spendPacket
	if err := json.Unmarshal([]byte(cli), &p); err != nil {
		t.Fatalf("%v\n%s", err, cli)
	}
	exec := (2000*3.0 + 100*15.0) / 1e6
	peer := map[string]spend.Total{}
	effect := map[string]string{}
	for _, v := range p.Peers {
		peer[v.Agent] = v.Spend
		for _, e := range v.Effects {
			if e.Kind == "session" {
				effect[v.Agent] = e.Summary
			}
		}
	}
	if a := peer["alice"]; a.Turns != 1 || a.Tokens() != 2100 || math.Abs(a.CostUSD-exec) > 1e-12 || !strings.HasSuffix(effect["alice"], ", 1 turns, "+a.String()) {
		t.Errorf("alice: %+v, effect %q", a, effect["alice"])
	}
	if b := peer["bob"]; b.Turns != 1 || b.UnknownTurns != 1 || !strings.HasSuffix(effect["bob"], ", unknown") {
		t.Errorf("bob reported nothing: %+v, effect %q", b, effect["bob"])
	}
	d := p.Spend.Plans["demo"]
	if d.Turns != 2 || d.Tokens() != 102100 || math.Abs(d.CostUSD-(exec+0.5)) > 1e-12 {
		t.Errorf("plan demo, executor and supervisor: %+v", d)
	}
	if p.Spend.All.Turns != 3 || p.Spend.All.UnknownTurns != 1 {
		t.Errorf("all %+v", p.Spend.All)
	}
	if p.Spend.Today != p.Spend.All && spend.Day(time.Now()) == day {
		t.Errorf("everything was spent today (%s): today %+v, all %+v", day, p.Spend.Today, p.Spend.All)
	}

	// The MCP server's packet is the CLI's.
	c := mustTool(t, mcpConnect(t, dir), "supervisor_observe", map[string]any{"goal": "g1", "agent": "sup"})
	var m spendPacket
	if err := json.Unmarshal([]byte(mustJSON(c.Doc)), &m); err != nil {
		t.Fatal(err)
	}
	if mustJSON(m) != mustJSON(p) {
		t.Errorf("mcp packet spend differs:\nmcp %s\ncli %s", mustJSON(m), mustJSON(p))
	}
	if !strings.Contains(c.Text, "spend "+p.Spend.All.String()) {
		t.Errorf("the tool's summary does not say the spend: %q", c.Text)
	}
}
