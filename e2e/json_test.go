package e2e

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/cmd/root"
)

// jsonCase is one command run with --json, then (when it can run twice)
// again with --jq. exits lists the codes it may end with while still
// printing its document.
type jsonCase struct {
	path   string   // the command, as cobra names it below the root
	args   []string // its arguments, without --json
	exits  []int    // accepted exit codes (default 0)
	once   bool     // a step that must not run twice: --jq only
	stream bool     // JSON lines, one document per line
	env    []string // VAR=VALUE set for this command only
}

// jsonCommands lists every command with --json, in an order where each
// finds the state the earlier ones left. {S} is a session id, {P} a policy
// id, {E} a ledger record id, {SRC} the fork source's session.
var jsonCommands = []jsonCase{
	{path: "config check"},
	{path: "config show"},
	{path: "profile check"},
	{path: "plugin ls"},
	{path: "plugin describe", args: []string{"scripted"}},
	{path: "plugin trust", args: []string{"scripted", "--show"}},
	{path: "profile trust", args: []string{"cheap", "--show"}},
	{path: "trust", args: []string{"--show"}},
	{path: "plan check", args: []string{"demo"}},
	{path: "plan status", args: []string{"demo"}},
	{path: "watch", args: []string{"demo"}},
	{path: "scout", args: []string{"demo", "--adapter", "scripted", "--question", "{Q}"}, once: true},
	{path: "scout check", args: []string{"demo", "--base", "main"}, exits: []int{1}},
	{path: "plan show", args: []string{"demo"}},
	{path: "plan owner", args: []string{"demo", "lib/upper.sh"}},
	{path: "plan render", args: []string{"demo", "WP1"}},
	{path: "plan freeze", args: []string{"demo"}},
	{path: "dispatch", args: []string{"demo"}},
	{path: "verify", args: []string{"demo", "WP1"}},
	{path: "checkpoint", args: []string{"demo", "WP0"}, once: true},
	{path: "sessions ls", args: []string{"--all"}},
	{path: "sessions start", args: []string{"--adapter", "scripted", "--dir", ".", "--label", "json", "--prompt", "hello"}, once: true},
	{path: "sessions wait", args: []string{"{S}", "--timeout", "30s"}},
	{path: "sessions monitor", args: []string{"{S}", "--for", "1s"}},
	{path: "sessions output", args: []string{"{S}"}, stream: true},
	{path: "sessions prompt", args: []string{"{S}", "--text", "hello again"}, once: true},
	{path: "policy ls"},
	{path: "policy wait", args: []string{"{P}", "--timeout", "20s"}, once: true},
	{path: "sessions kill", args: []string{"{S}"}},
	{path: "run", args: []string{"demo"}, once: true},
	{path: "consolidate", args: []string{"demo", "--dry-run"}},
	{path: "review", args: []string{"demo"}},
	{path: "e2e", args: []string{"demo"}},
	{path: "pr open", args: []string{"demo", "--dry-run"}},
	{path: "pr watch", args: []string{"demo", "--once"}},
	{path: "worktree ls"},
	{path: "worktree changes", args: []string{"demo-wp1"}},
	{path: "worktree new", args: []string{"scratch", "--no-setup"}, once: true},
	{path: "worktree archive", args: []string{"scratch"}, once: true},
	{path: "worktree restore", args: []string{"scratch"}, once: true},
	{path: "worktree rm", args: []string{"scratch"}, once: true},
	{path: "worktree gc"},
	{path: "sessions gc"},
	{path: "lesson add", args: []string{"json output is JSON only", "--tag", "json"}},
	{path: "lesson ls"},
	{path: "peer ls"},
	{path: "peer quota-guard", args: []string{"a1"}},
	{path: "peer register", args: []string{"a2", "--adapter", "scripted"}},
	{path: "goal new", args: []string{"g2", "--title", "json"}},
	{path: "goal gate add", args: []string{"--goal", "g2", "--id", "ship", "--question", "ship it?"}},
	{path: "goal gate close", args: []string{"--goal", "g2", "--id", "ship", "--answer", "yes"}},
	{path: "peer status", args: []string{"a1", "--goal", "g2", "--state", "working", "--next-action", "json"}},
	{path: "todo add", args: []string{"--goal", "g2", "--id", "t1", "--title", "json"}},
	{path: "todo claim", args: []string{"--goal", "g2", "--todo", "t1", "--agent", "a1", "--local"}},
	{path: "todo release", args: []string{"--goal", "g2", "--todo", "t1", "--agent", "a1", "--local"}, once: true},
	{path: "evidence add", args: []string{"--goal", "g2", "--agent", "a1", "--ref", "json", "--summary", "json"}},
	{path: "supervisor prompt", args: []string{"--goal-id", "g1", "--agent-id", "a1"}},
	{path: "supervisor event list", args: []string{"--goal-id", "g1", "--agent-id", "a1"}},
	{path: "peer attach", args: []string{"a1", "--session", "{SRC}"}},
	{path: "fork admit", args: []string{"j1", "--source", "a1", "--source-worktree", "demo-wp1", "--authority-ref", "op", "--task", "hello", "--wait", "30s"}},
	{path: "fork ls"},
	{path: "fork show", args: []string{"j1"}},
	{path: "fork settle", args: []string{"j1", "--discard", "--reason", "json"}},
	{path: "fork cancel", args: []string{"j1"}},
	{path: "ledger append", args: []string{"--kind", "note", "--id", "json-note", "--data", "{}"}, once: true},
	{path: "ledger show", args: []string{"{E}"}},
	{path: "ledger log", args: []string{"--limit", "3"}, stream: true},
	{path: "ledger verify"},
	{path: "ledger reindex"},
	{path: "ledger repair"},
	{path: "spend report", args: []string{"demo", "--id", "json-spend", "--usd", "0.01"}},
	{path: "spend show"},
	{path: "sync", args: []string{"origin"}},
	{path: "plan amend", args: []string{"demo", "--correction", "the gate is sh test.sh"}},
	{path: "plan init", args: []string{"scratch", "--gate", "sh test.sh"}, once: true},
	{path: "plan new-wp", args: []string{"scratch", "WP1", "--title", "json"}, once: true},
	{path: "plugin pin", args: []string{"scripted"}},
	{path: "pr comment", args: []string{"7", "--body-file", "{B}", "--repo", "acme/app", "--host", "{H}"},
		env: []string{"GH_TOKEN=test-token", "GH_CONFIG_DIR={GH}", "AGENTPROTO_GITHUB_CA={CA}"}},
	{path: "hooks install"},
	{path: "hooks uninstall"},
	{path: "init"},
	{path: "sessions stop", args: []string{"--force"}},
}

// decisionCommands run on a second pipeline, whose WP2 stopped on a
// question.
var decisionCommands = []jsonCase{
	{path: "waiting"},
	{path: "plan answer", args: []string{"demo", "WP2", "--choice", "tr"}},
}

// noJSON are the runnable commands that print no document of their own,
// each with the reason. Every other one has --json and a row above, or is
// a peer protocol document with --jq and a row in peerDocuments.
var noJSON = map[string]string{
	"completion":    "prints a script for the shell to source",
	"serve":         "is the sessions daemon: it runs until stopped and prints nothing",
	"mcp":           "is the MCP server: stdout carries the protocol",
	"mcp config":    "prints the client's own configuration snippet, to paste as it is",
	"web":           "serves a page for a person until Ctrl-C (the URL on stdout); --export writes the page to a file",
	"hooks run":     "is what git's hook runs (hidden): git reads its exit code",
	"policy attach": "pending: cmd/policycmd is being changed on another branch",
	"policy cancel": "pending: cmd/policycmd is being changed on another branch",
	"policy trust":  "pending: cmd/policycmd is being changed on another branch",
	"supervisor inject": "a peer protocol document with --jq that needs an inject decision and a live session; " +
		"TestPeerSupervisorProtocol reads it",
}

// checkJSONCoverage walks the command tree: a command with --json has --jq
// and a row; a command with only --jq is a peer document with a row; any
// other runnable command is exempted by noJSON, with its reason. Groups
// that only choose a subcommand (no flags of their own) are skipped.
func checkJSONCoverage(t *testing.T) {
	io, _, _, _ := cmdutil.Test()
	tree := root.NewCmdRoot(cmdutil.New(io, "test"))
	listed, peer, exempt := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range append(append(append([]jsonCase{}, jsonCommands...), decisionCommands...), prCommands...) {
		listed[c.path] = true
	}
	for _, c := range peerDocuments {
		i := slices.IndexFunc(c.args, func(a string) bool { return strings.HasPrefix(a, "-") })
		peer[strings.Join(c.args[:i], " ")] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), tree.Name()), " ")
		hasJSON, hasJQ := c.Flags().Lookup("json") != nil, c.Flags().Lookup("jq") != nil
		_, exempted := noJSON[path]
		switch {
		case hasJSON && !hasJQ:
			t.Errorf("%s has --json without --jq: use cmdutil.AddJSONFlags", path)
		case hasJSON && !listed[path]:
			t.Errorf("%s has --json but is not in jsonCommands", path)
		case hasJSON && exempted:
			t.Errorf("%s has --json: take it off noJSON", path)
		case hasJQ && !hasJSON && !peer[path] && !exempted:
			t.Errorf("%s has --jq only: a peer protocol document, but not in peerDocuments", path)
		case !hasJSON && !hasJQ && c.Runnable() && path != "" && (!c.HasSubCommands() || c.HasLocalFlags()) && !exempted:
			t.Errorf("%s prints no JSON: give it --json (cmdutil.AddJSONFlags) and a row in jsonCommands, or a reason in noJSON", path)
		}
		delete(listed, path)
		if exempted {
			exempt[path] = true
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(tree)
	for path := range listed {
		t.Errorf("jsonCommands lists %q, which has no --json", path)
	}
	for path := range noJSON {
		if !exempt[path] {
			t.Errorf("noJSON exempts %q, which is no command", path)
		}
	}
}

// TestEveryJSONCommandPrintsItsSchema runs every command that has --json on
// a real repository: stdout is JSON and nothing else, every document names
// the command's schema, and --jq filters it. A runnable command without
// --json fails the test unless noJSON says why it has none.
func TestEveryJSONCommandPrintsItsSchema(t *testing.T) {
	checkJSONCoverage(t)

	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	remote := filepath.Join(t.TempDir(), "remote.git")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	cfg, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), append(cfg, "[pr]\nrepo = \"acme/app\"\n[profiles.cheap]\nadapter = \"scripted\"\nauth = \"none\"\n"...), 0o644)
	must(t, dir, "git", "agentproto", "goal", "new", "g1", "--title", "json")
	must(t, dir, "git", "agentproto", "peer", "register", "a1", "--adapter", "scripted", "--quota-turns", "5")
	must(t, dir, "git", "agentproto", "goal", "configure", "--goal-id", "g1", "--supervisor-agent", "a1", "--execute")
	// pr comment talks to a loopback GitHub.
	gh := httptest.NewTLSServer(&prComments{t: t})
	defer gh.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: gh.Certificate().Raw}), 0o644)
	vars := map[string]string{"{Q}": filepath.Join(t.TempDir(), "question.md"), "{B}": filepath.Join(t.TempDir(), "comment.md"),
		"{H}": strings.TrimPrefix(gh.URL, "https://"), "{CA}": ca, "{GH}": t.TempDir()}
	os.WriteFile(vars["{Q}"], []byte("Where is the gate?\n"+script(`{"op":"write","path":"RECON.md","content":"## C1: the gate is test.sh\n`+"`test.sh:1`"+`\n> #!/bin/sh\n"}`)+"\n"), 0o644)
	os.WriteFile(vars["{B}"], []byte("findings: none\n"), 0o644)
	// One repository and one HOME for the whole table: each command sees
	// what the earlier ones did. A failing row is reported and the rest run.
	for _, c := range jsonCommands {
		docs := runJSONCase(t, dir, c, vars)
		switch c.path {
		case "sessions start":
			if len(docs) > 0 {
				vars["{S}"], _ = docs[0]["id"].(string)
			}
		case "policy ls":
			// The settled session is idle: the policy fires within a second.
			vars["{P}"] = strings.TrimSpace(must(t, dir, "git", "agentproto", "policy", "attach", vars["{S}"], "--on", "idle:1s", "--do", "kill"))
		case "supervisor event list":
			// A fork source: a1 with a live session in demo-wp1 (the
			// peer attach row), and an idle executor, a2.
			vars["{SRC}"] = strings.TrimSpace(must(t, dir, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--worktree", "demo-wp1", "--prompt", "hello"))
			must(t, dir, "git", "config", "--local", "agentproto.fork.mode", "on")
		case "ledger append":
			vars["{E}"] = "json-note"
		}
	}
	checkPeerDocuments(t, dir)

	// plan answer needs a WP that stopped on a question: another
	// pipeline, with its own HOME (and so its own worktrees).
	t.Run("decisions", func(t *testing.T) {
		stopped := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],"wiring":[],"exit_codes":[],` +
			`"stopped":{"question":"lower-case with tr or with awk?","options":["tr","awk"],"default":"tr"}}}`
		waiting := pipelineRepo(t, stopped, "lower lib/lower.sh")
		if out, errOut, err := sh(t, waiting, nil, "git", "agentproto", "dispatch", "demo"); exitCode(err) != 5 {
			t.Fatalf("dispatch of a stopped WP: %v\n%s%s", err, out, errOut)
		}
		for _, c := range decisionCommands {
			docs := runJSONCase(t, waiting, c, vars)
			if c.path == "waiting" {
				if ds, _ := docs[0]["decisions"].([]any); len(docs) != 1 || len(ds) != 1 || !strings.Contains(mustJSON(ds[0]), `"wp":"WP2"`) {
					t.Errorf("waiting lists no decision of WP2: %v", docs)
				}
			}
		}
	})
}

// runJSONCase runs c in dir, checks that stdout is JSON naming the
// command's schema, and returns its documents; a failure is reported and
// gives none.
func runJSONCase(t *testing.T, dir string, c jsonCase, vars map[string]string) (docs []map[string]any) {
	t.Helper()
	expand := func(in []string) []string {
		var out []string
		for _, a := range in {
			for k, v := range vars {
				a = strings.ReplaceAll(a, k, v)
			}
			out = append(out, a)
		}
		return out
	}
	args := append(append([]string{"agentproto"}, strings.Fields(c.path)...), expand(c.args)...)
	schema := "agentproto." + strings.ReplaceAll(c.path, " ", ".") + "/v1"
	run := func(extra ...string) string {
		cmd := append(append(expand(c.env), "git"), append(append([]string{}, args...), extra...)...)
		out, errOut, err := sh(t, dir, nil, "env", cmd...)
		if code := exitCode(err); !accepted(c.exits, code) {
			panic(fmt.Sprintf("git %s %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), strings.Join(extra, " "), code, out, errOut))
		}
		return out
	}
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", c.path, r)
			docs = nil
		}
	}()
	if c.once {
		// tojson prints the stamped document as one JSON string,
		// which jq writes raw: parse it as the document.
		docs = parseDocs(run("--jq", "tojson"), c.stream)
	} else {
		docs = parseDocs(run("--json"), c.stream)
		got := strings.TrimSpace(run("--jq", `if type == "array" then .[0].schema // "`+schema+`" else .schema end`))
		for _, line := range strings.Split(got, "\n") {
			if line != schema && !(isLedgerEvent(c.path) && line == "agentproto.event/v1") {
				t.Errorf("%s: --jq .schema printed %q, want %q", c.path, line, schema)
			}
		}
	}
	for _, d := range docs {
		if s, _ := d["schema"].(string); s != schema && !(isLedgerEvent(c.path) && s == "agentproto.event/v1") {
			t.Errorf("%s: document names schema %q, want %q: %v", c.path, s, schema, d)
		}
	}
	return docs
}

// peerDocuments are the peer protocol's commands, which print one JSON
// document whatever the flags, named by the protocol's own schemas.
var peerDocuments = []struct {
	args   []string
	schema string
}{
	{[]string{"goal", "configure", "--goal", "g1", "--supervisor-agent", "a1"}, "goal_configuration_v0"},
	{[]string{"supervisor", "observe", "--goal", "g1", "--agent", "a1"}, "supervisor_observation_v0"},
	{[]string{"supervisor", "event", "propose", "--goal", "g1", "--agent", "a1", "--decision-json", "{D}"}, "supervisor_proposal_v0"},
	{[]string{"supervisor", "event", "propose", "--goal", "g1", "--agent", "a1", "--decision-json", "{D}", "--apply"}, "supervisor_proposal_v0"},
	{[]string{"supervisor", "event", "receipt", "--goal", "g1", "--agent", "a1", "--receipt-json", "{R}"}, "supervisor_receipt_record_v0"},
	{[]string{"supervisor", "event", "receipt", "--goal", "g1", "--agent", "a1", "--receipt-json", "{R}", "--apply"}, "supervisor_receipt_record_v0"},
}

// checkPeerDocuments: each peer document's first field is its schema,
// and --jq .schema reads it.
func checkPeerDocuments(t *testing.T, dir string) {
	files := map[string]string{
		"{D}": writeJSON(t, map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d1", "kind": "observe",
			"reason_codes": []string{"all_green"}, "evidence_refs": []string{"ev1"}}),
		"{R}": writeJSON(t, map[string]any{"schema": "supervisor_receipt_v0", "receipt_id": "r1", "decision_id": "d1",
			"status": "rejected", "reason": "nothing to execute", "evidence_refs": []string{"ev1"}}),
	}
	for _, c := range peerDocuments {
		args := []string{"agentproto"}
		for _, a := range c.args {
			if f, ok := files[a]; ok {
				a = f
			}
			args = append(args, a)
		}
		out, errOut, err := sh(t, dir, nil, "git", args...)
		if err != nil {
			t.Errorf("%v: %v\n%s%s", c.args, err, out, errOut)
			continue
		}
		dec := json.NewDecoder(strings.NewReader(out))
		tok1, _ := dec.Token()
		key, _ := dec.Token()
		var name string
		if tok1 != json.Delim('{') || key != "schema" || dec.Decode(&name) != nil || name != c.schema {
			t.Errorf("%v: the document's first field is %v %v, want \"schema\": %q:\n%s", c.args, tok1, key, c.schema, out)
		}
		if !json.Valid([]byte(out)) {
			t.Errorf("%v: stdout is more than one document:\n%s", c.args, out)
		}
		if c.args[len(c.args)-1] == "--apply" {
			continue // a second --apply is a replay, checked elsewhere
		}
		if got, _, err := sh(t, dir, nil, "git", append(args, "--jq", ".schema")...); err != nil || strings.TrimSpace(got) != c.schema {
			t.Errorf("%v --jq .schema: %q, %v", c.args, got, err)
		}
	}
}

// isLedgerEvent: ledger show and log print events as stored, under the
// envelope's own schema.
func isLedgerEvent(path string) bool { return path == "ledger show" || path == "ledger log" }

func accepted(codes []int, code int) bool {
	if len(codes) == 0 {
		return code == 0
	}
	for _, c := range codes {
		if c == code {
			return true
		}
	}
	return false
}

// parseDocs parses stdout as one JSON document (a list gives one document
// per item) or, for a stream, one document per line; anything else on
// stdout fails.
func parseDocs(out string, stream bool) []map[string]any {
	var raws []string
	if stream {
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if l != "" {
				raws = append(raws, l)
			}
		}
	} else {
		raws = []string{out}
	}
	var docs []map[string]any
	for _, r := range raws {
		var v any
		if err := json.Unmarshal([]byte(r), &v); err != nil {
			panic(fmt.Sprintf("stdout is not JSON (%v):\n%s", err, out))
		}
		if s, ok := v.(string); ok { // from --jq tojson
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				panic(fmt.Sprintf("--jq tojson printed no JSON document (%v): %s", err, s))
			}
		}
		switch d := v.(type) {
		case map[string]any:
			docs = append(docs, d)
		case []any:
			for _, it := range d {
				m, ok := it.(map[string]any)
				if !ok {
					panic(fmt.Sprintf("list item %v is not an object", it))
				}
				docs = append(docs, m)
			}
		default:
			panic(fmt.Sprintf("stdout is %T, not a document: %s", v, out))
		}
	}
	return docs
}
