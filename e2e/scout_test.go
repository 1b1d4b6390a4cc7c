package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const scoutOrders = `package api

// Create stores an order and tells the bus.
func Create(o Order) error {
	if err := store.Put(o); err != nil {
		return err
	}
	bus.Emit("order_created", o)
	return nil
}
`

// scoutRepo commits a small tree the scout reads.
func scoutRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("api/orders.go", scoutOrders)
	write("api/refunds.go", "package api\n\n"+strings.Repeat("// padding line\n", 40)+"func Refund(id string) error {\n\treturn payments.Reverse(id, \"refund\")\n}\n")
	write("AGENTS.md", "# Definition of done\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "api")
	must(t, dir, "git", "agentproto", "init")
	return dir
}

// question is a scout question whose scripted agent writes recon (and,
// when extra is set, does something else too).
func question(t *testing.T, dir, recon string, extra ...string) string {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"op": "write", "path": "RECON.md", "content": recon})
	lines := append([]string{string(b)}, extra...)
	lines = append(lines, `{"op":"say","text":"recon written"}`)
	path := filepath.Join(t.TempDir(), "question.md")
	os.WriteFile(path, []byte("What happens when an order is created or refunded?\n\n"+script(lines...)+"\n"), 0o644)
	return path
}

const threeClaims = "# Recon\n\n" +
	"## C1: Create emits order_created after storing the order\n`api/orders.go:9`\n> bus.Emit(\"order_created\", o)\n\n" +
	"## C2: A refund reverses the payment\n`api/refunds.go:3`\n> return payments.Reverse(id, \"refund\")\n\n" +
	"## C3: Create emits order_paid once paid\n`api/orders.go:8`\n> bus.Emit(\"order_paid\", o)\n"

// A scout writes a recon with one true, one moved and one invented
// citation: the verdicts are exactly those; a brief relying on the
// invented claim is flagged by plan check; a correction reaches a brief
// rendered afterwards; a scout that changes anything else is refused.
func TestScoutReconVerifiedAgainstTheSource(t *testing.T) {
	dir := scoutRepo(t)
	q := question(t, dir, threeClaims)
	out := must(t, dir, "git", "agentproto", "scout", "demo", "--adapter", "scripted", "--question", q, "--json")
	var run struct {
		Schema string
		Check  struct {
			Verified, Moved, Unverified int
			Claims                      []struct {
				ID, Verdict string
				Citations   []struct{ Verdict, Found, Reason string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	for _, c := range run.Check.Claims {
		got[c.ID] = c.Verdict
		if c.ID == "C2" && c.Citations[0].Found != "api/refunds.go:44" {
			t.Errorf("C2 found at %q, want api/refunds.go:44", c.Citations[0].Found)
		}
		if c.ID == "C3" && c.Citations[0].Reason == "" {
			t.Error("C3 is unverified without a reason")
		}
	}
	if got["C1"] != "verified" || got["C2"] != "moved" || got["C3"] != "unverified" || len(got) != 3 {
		t.Fatalf("verdicts %v\n%s", got, out)
	}
	if run.Schema != "agentproto.scout/v1" {
		t.Errorf("schema %q", run.Schema)
	}
	recon, err := os.ReadFile(filepath.Join(dir, ".plans/demo/RECON.md"))
	if err != nil || string(recon) != threeClaims {
		t.Fatalf("RECON.md in the plan folder: %v\n%s", err, recon)
	}
	if log := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "plan_scouted"); !strings.Contains(log, "plan_scouted") {
		t.Fatalf("no plan_scouted event:\n%s", log)
	}
	// scout check exits 1 while a claim is unverified, naming it.
	stdout, _, err := sh(t, dir, nil, "git", "agentproto", "scout", "check", "demo", "--base", "main")
	if exitCode(err) != 1 || !strings.Contains(stdout, "C3   unverified") || !strings.Contains(stdout, "found at api/refunds.go:44") {
		t.Fatalf("scout check: exit %d\n%s", exitCode(err), stdout)
	}
	// A second scout does not overwrite the recon.
	if _, errOut, err := sh(t, dir, nil, "git", "agentproto", "scout", "demo", "--adapter", "scripted", "--question", q); exitCode(err) == 0 || !strings.Contains(errOut, "RECON.md exists") {
		t.Fatalf("second scout: %v %s", err, errOut)
	}

	// The plan: WP1 relies on the invented claim, WP2 on a true one.
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "true")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP2")
	os.WriteFile(filepath.Join(dir, ".plans/demo/plan.toml"), []byte(`name = "demo"
base = "main"
gate = "true"
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/contract.txt"]
[[wp]]
id = "WP1"
title = "payments hook"
owns = ["api/payments.go"]
depends_on = ["WP0"]
[[wp]]
id = "WP2"
title = "orders hook"
owns = ["api/hooks.go"]
depends_on = ["WP0"]
`), 0o644)
	for wp, claim := range map[string]string{"WP1": "recon:C3", "WP2": "recon:C1"} {
		p := filepath.Join(dir, ".plans/demo", wp+"-brief.md")
		b, _ := os.ReadFile(p)
		text := strings.Replace(string(b), "- (fork): default (choice).", "- event name: default order_created.", 1)
		os.WriteFile(p, []byte(text+"\nThe event to hook is the one the recon found ("+claim+").\n"), 0o644)
	}
	var check struct {
		Findings []struct{ Code, WP, File, Message string }
	}
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "plan", "check", "demo", "--json")), &check)
	flagged := map[string]bool{}
	for _, f := range check.Findings {
		if f.Code == "recon-unverified" {
			flagged[f.WP] = strings.Contains(f.Message, "recon:C3") && f.File == "WP1-brief.md"
		}
	}
	if !flagged["WP1"] || len(flagged) != 1 {
		t.Fatalf("recon-unverified findings %v (want WP1 only): %+v", flagged, check.Findings)
	}

	// Frozen, then corrected: the brief rendered afterwards carries the fix.
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	// The freeze records the recon with the verdicts its check gave.
	frozen := ledgerEvents(t, dir, "plan_frozen")
	var rec struct {
		Recon struct {
			Claims []struct{ ID, Verdict string }
		}
	}
	b, _ := json.Marshal(frozen[len(frozen)-1])
	json.Unmarshal(b, &rec)
	verdicts := map[string]string{}
	for _, c := range rec.Recon.Claims {
		verdicts[c.ID] = c.Verdict
	}
	if verdicts["C1"] != "verified" || verdicts["C2"] != "moved" || verdicts["C3"] != "unverified" || len(verdicts) != 3 {
		t.Fatalf("plan_frozen's recon verdicts: %v (%s)", verdicts, b)
	}
	must(t, dir, "git", "agentproto", "plan", "amend", "demo", "--recon", "--correction", "Create never emits order_paid: C3 is wrong; payment events come from billing.")
	prompt := must(t, dir, "git", "agentproto", "plan", "render", "demo", "WP1")
	if !strings.Contains(prompt, "Corrections to RECON.md") || !strings.Contains(prompt, "C3 is wrong") {
		t.Fatalf("the rendered brief lacks the recon's correction:\n%s", prompt)
	}
	if st := must(t, dir, "git", "agentproto", "plan", "status", "demo"); strings.Contains(st, "modified") {
		t.Fatalf("the amended recon shows as drift:\n%s", st)
	}

	// A scout that writes anything but its recon is refused; nothing adopted.
	bad := question(t, dir, threeClaims, `{"op":"write","path":"api/orders.go","content":"package api\n"}`)
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "scout", "other", "--adapter", "scripted", "--question", bad)
	if exitCode(err) == 0 || !strings.Contains(errOut, "changed api/orders.go") {
		t.Fatalf("a scout that edits code: exit %d %s", exitCode(err), errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".plans/other/RECON.md")); err == nil {
		t.Fatal("the recon of a voided scout run was adopted")
	}
}

// A scout that writes outside its worktree (into the main checkout) is
// refused as one that edits code in it: nothing adopted, where no sandbox
// stops the write (off here).
func TestScoutWritingOutsideIsRefused(t *testing.T) {
	dir := scoutRepo(t)
	unconfined(t, dir)
	stray := filepath.Join(dir, "notes.txt")
	q := question(t, dir, threeClaims, step("run", "cmd", "echo mine > "+stray))
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "scout", "demo", "--adapter", "scripted", "--question", q)
	if exitCode(err) != 3 || !strings.Contains(errOut, "notes.txt") || !strings.Contains(errOut, "changed outside its worktree scout-demo") {
		t.Fatalf("a scout writing outside: exit %d %s", exitCode(err), errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".plans/demo/RECON.md")); err == nil {
		t.Fatal("the recon of a voided scout run was adopted")
	}
}

// Without --question and --adapter the scout runs [dispatch] adapter on
// the default recon question, which names the plan; an empty question
// file is refused.
func TestScoutDefaults(t *testing.T) {
	dir := scoutRepo(t)
	recon := "## C1: Create emits order_created\n`api/orders.go:9`\n> bus.Emit(\"order_created\", o)\n"
	commitExecAgent(t, dir, `case "$(cat "$1")" in
*"Reply with exactly READY"*) echo READY;;
*"Map what a plan for demo needs to know about this repository"*) printf '%s' '`+recon+`' > RECON.md; echo done;;
*) echo "not the default question";;
esac
`)
	must(t, dir, "git", "agentproto", "plugin", "trust", "exec")
	empty := filepath.Join(t.TempDir(), "q.md")
	os.WriteFile(empty, []byte(" \n"), 0o644)
	if _, errOut, err := sh(t, dir, nil, "git", "agentproto", "scout", "demo", "--question", empty); exitCode(err) != 2 || !strings.Contains(errOut, "is empty") {
		t.Fatalf("an empty question: exit %d %s", exitCode(err), errOut)
	}
	out := must(t, dir, "git", "agentproto", "scout", "demo")
	if !strings.Contains(out, "C1   verified") {
		t.Fatalf("scout on its defaults:\n%s", out)
	}
}
