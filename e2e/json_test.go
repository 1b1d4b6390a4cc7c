package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
}

// jsonCommands lists every command with --json, in an order where each
// finds the state the earlier ones left. {S} is a session id, {P} a policy
// id, {E} a ledger record id.
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
	{path: "policy ls"},
	{path: "policy wait", args: []string{"{P}", "--timeout", "20s"}, once: true},
	{path: "run", args: []string{"demo"}, once: true},
	{path: "consolidate", args: []string{"demo", "--dry-run"}},
	{path: "review", args: []string{"demo"}},
	{path: "e2e", args: []string{"demo"}},
	{path: "pr open", args: []string{"demo", "--dry-run"}},
	{path: "worktree ls"},
	{path: "worktree changes", args: []string{"demo-wp1"}},
	{path: "worktree new", args: []string{"scratch", "--no-setup"}, once: true},
	{path: "worktree archive", args: []string{"scratch"}, once: true},
	{path: "worktree gc"},
	{path: "sessions gc"},
	{path: "lesson ls"},
	{path: "peer ls"},
	{path: "peer quota-guard", args: []string{"a1"}},
	{path: "supervisor event list", args: []string{"--goal-id", "g1", "--agent-id", "a1"}},
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
	{path: "sync", args: []string{"origin"}},
	{path: "init"},
}

// TestEveryJSONCommandPrintsItsSchema runs every command that has --json on
// a real repository: stdout is JSON and nothing else, every document names
// the command's schema, and --jq filters it. A new command with --json that
// is not in the table fails the test.
func TestEveryJSONCommandPrintsItsSchema(t *testing.T) {
	io, _, _, _ := cmdutil.Test()
	tree := root.NewCmdRoot(cmdutil.New(io, "test"))
	listed := map[string]bool{}
	for _, c := range jsonCommands {
		listed[c.path] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), tree.Name()), " ")
		if c.Flags().Lookup("json") != nil {
			if !listed[path] {
				t.Errorf("%s has --json but is not in jsonCommands", path)
			}
			if c.Flags().Lookup("jq") == nil {
				t.Errorf("%s has --json without --jq: use cmdutil.AddJSONFlags", path)
			}
			delete(listed, path)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(tree)
	for path := range listed {
		t.Errorf("jsonCommands lists %q, which has no --json", path)
	}

	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	remote := filepath.Join(t.TempDir(), "remote.git")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	cfg, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), append(cfg, "[pr]\nrepo = \"acme/app\"\n[profiles.cheap]\nadapter = \"scripted\"\nauth = \"none\"\n"...), 0o644)
	must(t, dir, "git", "agentproto", "goal", "new", "g1", "--title", "json")
	must(t, dir, "git", "agentproto", "peer", "register", "a1", "--adapter", "scripted", "--quota-turns", "5")
	must(t, dir, "git", "agentproto", "goal", "configure", "--goal-id", "g1", "--supervisor-agent", "a1", "--execute")
	vars := map[string]string{"{Q}": filepath.Join(t.TempDir(), "question.md")}
	os.WriteFile(vars["{Q}"], []byte("Where is the gate?\n"+script(`{"op":"write","path":"RECON.md","content":"## C1: the gate is test.sh\n`+"`test.sh:1`"+`\n> #!/bin/sh\n"}`)+"\n"), 0o644)
	// One repository and one HOME for the whole table: each command sees
	// what the earlier ones did. A failing row is reported and the rest run.
	for _, c := range jsonCommands {
		func() {
			args := []string{"agentproto"}
			args = append(args, strings.Fields(c.path)...)
			for _, a := range c.args {
				for k, v := range vars {
					a = strings.ReplaceAll(a, k, v)
				}
				args = append(args, a)
			}
			schema := "agentproto." + strings.ReplaceAll(c.path, " ", ".") + "/v1"
			run := func(extra ...string) string {
				out, errOut, err := sh(t, dir, nil, "git", append(append([]string{}, args...), extra...)...)
				if code := exitCode(err); !accepted(c.exits, code) {
					panic(fmt.Sprintf("git %s %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), strings.Join(extra, " "), code, out, errOut))
				}
				return out
			}
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", c.path, r)
				}
			}()
			var docs []map[string]any
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
			switch c.path {
			case "sessions start":
				vars["{S}"], _ = docs[0]["id"].(string)
			case "policy ls":
				// The settled session is idle: the policy fires within a second.
				vars["{P}"] = strings.TrimSpace(must(t, dir, "git", "agentproto", "policy", "attach", vars["{S}"], "--on", "idle:1s", "--do", "kill"))
			case "supervisor event list":
				// A fork source: a1 with a live session in demo-wp1, and
				// an idle executor.
				must(t, dir, "git", "agentproto", "peer", "register", "a2", "--adapter", "scripted")
				src := strings.TrimSpace(must(t, dir, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--worktree", "demo-wp1", "--prompt", "hello"))
				must(t, dir, "git", "agentproto", "peer", "attach", "a1", "--session", src)
				must(t, dir, "git", "config", "--local", "agentproto.fork.mode", "on")
			case "ledger append":
				vars["{E}"] = "json-note"
			}
		}()
	}
	checkPeerDocuments(t, dir)
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
