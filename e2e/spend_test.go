package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
)

func loadRecord(t *testing.T, dir, id string) *sessions.Record {
	t.Helper()
	r, err := sessions.OpenView(filepath.Join(dir, ".git")).Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ledgerEvent is one line of ledger log --json.
type ledgerEvent struct {
	ID   string          `json:"id"`
	Kind string          `json:"kind"`
	Time string          `json:"time"`
	Data json.RawMessage `json:"data"`
}

func ledgerKind(t *testing.T, dir, kind string) []ledgerEvent {
	t.Helper()
	var out []ledgerEvent
	for _, line := range strings.Split(strings.TrimSpace(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", kind, "--json")), "\n") {
		if line == "" {
			continue
		}
		var e ledgerEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		out = append(out, e)
	}
	return out
}

func usageTurns(t *testing.T, dir string) map[string]spend.TurnEvent {
	t.Helper()
	out := map[string]spend.TurnEvent{}
	for _, e := range ledgerKind(t, dir, spend.KindTurn) {
		var te spend.TurnEvent
		if err := json.Unmarshal(e.Data, &te); err != nil {
			t.Fatal(err)
		}
		out[e.ID] = te
	}
	return out
}

// Each turn's usage is the agent's last report of it: running figures
// are replaced, never added; tokens without a figure are priced from
// [prices]; a turn with no report is unknown, not zero. The record and
// the ledger say the same.
func TestSessionUsagePerTurn(t *testing.T) {
	dir := newRepo(t)
	writeConfig(t, filepath.Join(dir, "agentproto.toml"), "[prices.\"m1\"]\ninput = 3.0\ncached_input = 0.3\noutput = 15.0\n")
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", script(
		`{"op":"usage","usage":{"model":"m1","input":100,"output":10}}`,
		`{"op":"say","text":"working"}`,
		`{"op":"usage","usage":{"model":"m1","input":2000,"cached":50000,"creation":300,"output":400,"final":true}}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")
	must(t, dir, "git", "agentproto", "sessions", "prompt", id, "--text", script(`{"op":"usage","usage":{"model":"m1","input":7,"output":3,"cost":0.25}}`, `{"op":"say","text":"two"}`))
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")
	must(t, dir, "git", "agentproto", "sessions", "prompt", id, "--text", script(`{"op":"say","text":"no usage from me"}`))
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")

	r := loadRecord(t, dir, id)
	if len(r.Usage) != 3 {
		t.Fatalf("usage: %+v", r.Usage)
	}
	one, two, three := r.Usage[0], r.Usage[1], r.Usage[2]
	wantOne := (2000*3.0 + 50000*0.3 + 300*3.0 + 400*15.0) / 1e6
	if one.Turn != 1 || one.InputTokens != 2000 || one.CachedInputTokens != 50000 || one.CacheCreationTokens != 300 || one.OutputTokens != 400 ||
		one.CostFrom != spend.CostFromPrices || math.Abs(one.CostUSD-wantOne) > 1e-12 || !one.Final {
		t.Errorf("turn 1: %+v, want $%v", one, wantOne)
	}
	if two.Turn != 2 || two.Tokens() != 10 || two.CostUSD != 0.25 || two.CostFrom != spend.CostFromAgent {
		t.Errorf("turn 2: %+v", two)
	}
	if three.Turn != 3 || !three.Unknown || three.Tokens() != 0 {
		t.Errorf("turn 3 must be unknown: %+v", three)
	}
	if r.Spend.Turns != 3 || r.Spend.UnknownTurns != 1 || r.Spend.Tokens() != 52710 || math.Abs(r.Spend.CostUSD-(wantOne+0.25)) > 1e-12 {
		t.Errorf("spend: %+v", r.Spend)
	}
	ev := usageTurns(t, dir)
	for i, u := range r.Usage {
		e, ok := ev["usage/"+id+"/"+string(rune('1'+i))]
		if !ok || e.Turn != u || e.Session != id || e.Adapter != "scripted" {
			t.Errorf("ledger turn %d: %+v, record %+v", i+1, e, u)
		}
	}
	ls := must(t, dir, "git", "agentproto", "sessions", "ls", "--all")
	if !strings.Contains(ls, r.Spend.String()) || !strings.Contains(ls, "(+1 turns unknown)") {
		t.Errorf("sessions ls does not show the spend %q:\n%s", r.Spend.String(), ls)
	}
	// watch shows the session's spend, the unknown turn said.
	var w struct {
		Sessions []struct {
			ID    string      `json:"id"`
			Spend spend.Total `json:"spend"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "watch", "--json")), &w); err != nil {
		t.Fatal(err)
	}
	if len(w.Sessions) != 1 || w.Sessions[0].ID != id || w.Sessions[0].Spend != r.Spend {
		t.Errorf("watch --json sessions: %+v, record %+v", w.Sessions, r.Spend)
	}
	once := must(t, dir, "git", "agentproto", "watch", "--once")
	if short := r.Spend.Short(); !strings.HasPrefix(short, "≥$0.2") || !regexp.MustCompile(`(?m)^`+id+` .* `+regexp.QuoteMeta(short)+`$`).MatchString(once) {
		t.Errorf("watch --once does not end the session's line with %q:\n%s", short, once)
	}
}

// A session that reaches its budget mid-turn is stopped at once: the
// turn's next step never runs, the session fails with budget_exhausted
// within a second of the report that crossed the cap, and the ledger
// says which cap.
func TestBudgetStopsTheSessionMidTurn(t *testing.T) {
	dir := newRepo(t)
	writeConfig(t, filepath.Join(dir, "agentproto.toml"), "[budgets]\nsession_tokens = 1000\n")
	// A session in the main checkout writes in what is there, not new
	// entries at its top.
	writeConfig(t, filepath.Join(dir, "work", ".keep"), "")
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", script(
		`{"op":"usage","usage":{"input":400,"output":100}}`,
		`{"op":"write","path":"work/before.txt","content":"kept\n"}`,
		`{"op":"sleep","ms":200}`,
		`{"op":"usage","usage":{"input":900,"output":200}}`,
		`{"op":"sleep","ms":4000}`,
		`{"op":"write","path":"work/after.txt","content":"must not be written\n"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	sh(t, dir, nil, "git", "agentproto", "sessions", "wait", id, "--until", "exit", "--timeout", "20s")
	time.Sleep(4500 * time.Millisecond) // past the script's sleep: had it run on, after.txt would be there
	if _, err := os.Stat(filepath.Join(dir, "work", "after.txt")); err == nil {
		t.Fatal("the session ran on past its budget")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "work", "before.txt")); err != nil || string(b) != "kept\n" {
		t.Fatalf("the work done before the cap is gone: %q %v", b, err)
	}
	r := loadRecord(t, dir, id)
	if r.State != sessions.StateFailed || !strings.Contains(r.Failure, "budget_exhausted: session "+id+" used 1100 tokens") ||
		!containsStr(r.Faults, spend.FaultBudgetExhausted) {
		t.Fatalf("record: state %s failure %q faults %v", r.State, r.Failure, r.Faults)
	}
	if r.Spend.Tokens() != 1100 {
		t.Errorf("spend: %+v", r.Spend)
	}
	ev := usageTurns(t, dir)["usage/"+id+"/1"]
	if ev.Stopped == nil || ev.Stopped.Key != "session_tokens" || ev.Stopped.Cap != 1000 || ev.Tokens() != 1100 {
		t.Fatalf("usage event: %+v stopped %+v", ev, ev.Stopped)
	}
	failed := ledgerKind(t, dir, "session_failed")
	if len(failed) != 1 || !strings.Contains(string(failed[0].Data), `"fault":"budget_exhausted"`) {
		t.Fatalf("session_failed: %+v", failed)
	}
	at, err := time.Parse(time.RFC3339Nano, failed[0].Time)
	if err != nil {
		t.Fatal(err)
	}
	if gap := at.Sub(ev.At); gap < 0 || gap > time.Second {
		t.Errorf("stopped %v after the crossing report (at %v, failed %v)", gap, ev.At, at)
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// An executor cannot raise its budget: the daemon holds the budget it
// read when the session started, and the sandbox keeps agentproto.toml
// read-only even to a session in the main checkout.
func TestAnExecutorCannotRaiseItsBudget(t *testing.T) {
	dir := newRepo(t)
	const cfg = "[budgets]\nsession_tokens = 1000\n"
	writeConfig(t, filepath.Join(dir, "agentproto.toml"), cfg)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", script(
		`{"op":"run","cmd":"printf '[budgets]\\nsession_tokens = 100000000\\n' > agentproto.toml && echo RAISED || echo REFUSED"}`,
		`{"op":"usage","usage":{"input":1500}}`,
		`{"op":"sleep","ms":3000}`,
		`{"op":"say","text":"still running"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	sh(t, dir, nil, "git", "agentproto", "sessions", "wait", id, "--until", "exit", "--timeout", "20s")
	r := loadRecord(t, dir, id)
	if r.State != sessions.StateFailed || !containsStr(r.Faults, spend.FaultBudgetExhausted) {
		t.Fatalf("the session ran past the budget it started with: %s %v %q", r.State, r.Faults, r.Failure)
	}
	if strings.Contains(outputLog(dir, id), "still running") {
		t.Fatal("the turn went on after the cap")
	}
	if r.Sandbox != "landlock" {
		t.Skipf("no sandbox on this machine (%s): the budget held, the file is not protected", r.SandboxNote)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	if string(b) != cfg || !strings.Contains(outputLog(dir, id), "REFUSED") {
		t.Fatalf("the session rewrote agentproto.toml: %q\n%s", b, outputLog(dir, id))
	}
}

// A plan's spend is whole: its executors' turns by work package, from the
// sessions daemon's usage events, and the supervisor's own report; plan
// status (and --json) and spend show say it, a report sent twice counts
// once.
func TestPlanSpendIsWhole(t *testing.T) {
	dir := pipelineRepoConfig(t, "[prices.\"sup-model\"]\ninput = 1.0\ncached_input = 0.1\noutput = 2.0\n",
		`{"op":"usage","usage":{"input":1000,"cached":3000,"output":100,"cost":0.02}}`, "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--no-ping")
	for i := 0; i < 2; i++ {
		must(t, dir, "git", "agentproto", "spend", "report", "demo", "--id", "sup-1", "--model", "sup-model", "--input", "500000", "--output", "10000")
	}
	var st struct {
		Spend *spend.Plan `json:"spend"`
	}
	if err := json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "plan", "status", "demo", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	s := st.Spend
	if s == nil {
		t.Fatal("plan status has no spend")
	}
	wp2 := s.WPs["WP2"]
	if wp2.Turns != 1 || wp2.Tokens() != 4100 || wp2.CostUSD != 0.02 {
		t.Errorf("WP2: %+v", wp2)
	}
	if w := s.WPs["WP0"]; w.Turns != 1 || w.UnknownTurns != 1 || w.Tokens() != 0 {
		t.Errorf("WP0 reported no usage: its turn must be unknown: %+v", w)
	}
	sup := 0.5 + 0.02 // 500k input at $1, 10k output at $2 per million
	if s.Supervisor.Turns != 1 || s.Supervisor.Tokens() != 510000 || math.Abs(s.Supervisor.CostUSD-sup) > 1e-12 {
		t.Errorf("supervisor: %+v", s.Supervisor)
	}
	if s.Executors.Turns != 3 || s.Total.Turns != 4 || math.Abs(s.Total.CostUSD-(sup+0.02)) > 1e-12 || s.Total.UnknownTurns != 2 {
		t.Errorf("executors %+v total %+v", s.Executors, s.Total)
	}
	text := must(t, dir, "git", "agentproto", "plan", "status", "demo")
	if !strings.Contains(text, "spend: "+s.Total.String()) {
		t.Errorf("plan status does not show the spend %q:\n%s", s.Total, text)
	}
	// watch shows the same: the plan's total and each WP's.
	var w struct {
		Spend *spend.Plan `json:"spend"`
		WPs   []struct {
			ID    string       `json:"id"`
			Spend *spend.Total `json:"spend"`
		} `json:"wps"`
	}
	if err := json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "watch", "demo", "--json")), &w); err != nil {
		t.Fatal(err)
	}
	if w.Spend == nil || w.Spend.Total != s.Total || w.Spend.Supervisor != s.Supervisor {
		t.Errorf("watch --json spend: %+v, plan status %+v", w.Spend, s)
	}
	for _, r := range w.WPs {
		if want, ok := s.WPs[r.ID]; !ok || r.Spend == nil || *r.Spend != want {
			t.Errorf("watch --json %s: %+v, plan status %+v", r.ID, r.Spend, s.WPs[r.ID])
		}
	}
	once := must(t, dir, "git", "agentproto", "watch", "demo", "--once")
	if !strings.Contains(once, "spend "+s.Total.String()+" · supervisor "+s.Supervisor.Short()) || !regexp.MustCompile(`(?m)^WP2 .* \$0\.0200 `).MatchString(once) ||
		!regexp.MustCompile(`(?m)^WP0 .* unknown `).MatchString(once) {
		t.Errorf("watch --once does not show the spend:\n%s", once)
	}
	show := must(t, dir, "git", "agentproto", "spend", "show")
	if !strings.Contains(show, "plan demo: "+s.Total.String()) || !strings.Contains(show, "day "+spend.Day(time.Now())) {
		t.Errorf("spend show:\n%s", show)
	}
	if _, errOut, err := sh(t, dir, nil, "git", "agentproto", "spend", "report", "demo", "--id", "sup-1", "--input", "1"); err == nil || !strings.Contains(errOut, "with other content") {
		t.Errorf("the same report id with other figures was taken: %v %s", err, errOut)
	}
}

// A supervisor's reported spend counts in its plan's budget in the
// sessions daemon, though no session holds it: a session of the plan is
// stopped once its own 1,500 tokens and the supervisor's 9,000 reach the
// plan's cap of 10,000, no new session of the plan starts, a session of
// another plan does.
func TestSupervisorSpendCountsInThePlanBudget(t *testing.T) {
	dir := newRepo(t)
	writeConfig(t, filepath.Join(dir, "agentproto.toml"), "[budgets]\nplan_tokens = 10000\n")
	must(t, dir, "git", "agentproto", "spend", "report", "demo", "--id", "sup-1", "--input", "9000")
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--dir", dir, "--label", "demo/WP1", "--prompt", script(
		`{"op":"usage","usage":{"input":500}}`,
		`{"op":"sleep","ms":200}`,
		`{"op":"usage","usage":{"input":1500}}`,
		`{"op":"sleep","ms":4000}`,
		`{"op":"say","text":"still running"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	sh(t, dir, nil, "git", "agentproto", "sessions", "wait", id, "--until", "exit", "--timeout", "20s")
	r := loadRecord(t, dir, id)
	if r.State != sessions.StateFailed || !strings.Contains(r.Failure, "budget_exhausted: plan demo used 10500 tokens") {
		t.Fatalf("record: state %s failure %q faults %v", r.State, r.Failure, r.Faults)
	}
	if strings.Contains(outputLog(dir, id), "still running") {
		t.Fatal("the turn went on after the plan's cap")
	}
	if _, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--dir", dir, "--label", "demo/WP2", "--prompt", script(`{"op":"say","text":"hi"}`)); err == nil ||
		!strings.Contains(errOut, "no session starts under it") {
		t.Fatalf("a session of the spent plan started: %v %s", err, errOut)
	}
	other, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--dir", dir, "--label", "other/WP1", "--prompt", script(`{"op":"usage","usage":{"input":1500}}`, `{"op":"say","text":"done"}`))
	if err != nil {
		t.Fatalf("a session of another plan was refused: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", other, "--timeout", "20s")
	if o := loadRecord(t, dir, other); containsStr(o.Faults, spend.FaultBudgetExhausted) {
		t.Fatalf("another plan's session was stopped: %q", o.Failure)
	}
}
