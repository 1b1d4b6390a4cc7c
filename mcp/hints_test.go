package mcp

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/sessions"
)

// connect serves a fresh repository with role's tools and connects an
// in-memory client to it.
func connect(t *testing.T, role string) *sdk.ClientSession {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s, err := New(Options{Dir: dir, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listTools(t *testing.T, role string) []*sdk.Tool {
	t.Helper()
	res, err := connect(t, role).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// schemaMap is a tool's schema as the client received it.
func schemaMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(v)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Every tool a client lists says what it does to the world, what it
// returns, and takes a schema the model providers accept: no oneOf,
// anyOf or allOf at the top (Anthropic's and OpenAI's APIs refuse such a
// tool, and Claude Code drops it silently).
func TestEveryToolSaysWhatItDoesAndReturns(t *testing.T) {
	seen := map[string]bool{}
	for _, role := range []string{RoleSupervisor, RoleExecutor} {
		for _, tl := range listTools(t, role) {
			seen[tl.Name] = true
			a := tl.Annotations
			switch {
			case a == nil || a.Title == "":
				t.Errorf("%s: no annotations or title", tl.Name)
				continue
			case a.OpenWorldHint == nil:
				t.Errorf("%s: openWorldHint is not said", tl.Name)
			case !a.ReadOnlyHint && a.DestructiveHint == nil:
				t.Errorf("%s: writes but destructiveHint is not said", tl.Name)
			case a.ReadOnlyHint && (a.DestructiveHint != nil && *a.DestructiveHint):
				t.Errorf("%s: read-only and destructive", tl.Name)
			}
			in := schemaMap(t, tl.InputSchema)
			for _, k := range []string{"oneOf", "anyOf", "allOf", "if", "not"} {
				if in[k] != nil {
					t.Errorf("%s: input schema has %s at the top", tl.Name, k)
				}
			}
			if in["type"] != "object" || in["additionalProperties"] != false {
				t.Errorf("%s: input schema is not a closed object: %v", tl.Name, in)
			}
			out := schemaMap(t, tl.OutputSchema)
			if out["type"] != "object" {
				t.Fatalf("%s: output schema is not an object: %v", tl.Name, out)
			}
			docs, _ := out["anyOf"].([]any)
			want := 2
			if hints[tl.Name].long {
				want = 3
			}
			if len(docs) != want {
				t.Errorf("%s: %d alternatives in the output schema, want %d (document, error, job for a long tool)", tl.Name, len(docs), want)
			}
			for _, d := range docs {
				props, _ := d.(map[string]any)["properties"].(map[string]any)
				if props["schema"] == nil {
					t.Errorf("%s: output schema has no schema property: %v", tl.Name, d)
				}
			}
			if len(tl.Description) < 40 {
				t.Errorf("%s: description too short to choose by: %q", tl.Name, tl.Description)
			}
		}
	}
	for name := range hints {
		if !seen[name] {
			t.Errorf("hints names %s, which no role serves", name)
		}
	}
	for name := range refinedInput {
		if !seen[name] {
			t.Errorf("refinedInput names %s, which no role serves", name)
		}
	}
}

// accepts says whether a tool's input schema takes args.
func accepts(t *testing.T, tl *sdk.Tool, args map[string]any) bool {
	t.Helper()
	b, _ := json.Marshal(tl.InputSchema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.Validate(args) == nil
}

// The enums and patterns a client is given take exactly what the
// handlers take: a model that follows the schema is never refused for
// these arguments, and one that does not is refused before any work.
func TestSchemasTakeWhatTheHandlersTake(t *testing.T) {
	tools := map[string]*sdk.Tool{}
	for _, tl := range listTools(t, RoleSupervisor) {
		tools[tl.Name] = tl
	}
	check := func(tool, arg string, base map[string]any, values []string, handler func(string) error) {
		t.Helper()
		for _, v := range values {
			args := map[string]any{arg: v}
			for k, x := range base {
				args[k] = x
			}
			schemaOK, handlerOK := accepts(t, tools[tool], args), handler(v) == nil
			if schemaOK != handlerOK {
				t.Errorf("%s %s=%q: schema accepts %v, handler accepts %v", tool, arg, v, schemaOK, handlerOK)
			}
		}
	}
	ids := map[string]any{"ids": []string{"s-1"}}
	check("session_wait", "until", ids, []string{"turn-end", "exit", "Exit", "idle", "turn_end", " exit"},
		func(v string) error { _, err := checkUntil(v); return err })
	durations := []string{"30s", "1m30s", "1.5h", "250ms", ".5s", "40", "-1s", "soon", "1 s", "s"}
	// The one difference a pattern cannot hold: a zero duration has the
	// shape and is refused by the handler, with a message saying why.
	if !accepts(t, tools["session_wait"], map[string]any{"ids": []string{"s-1"}, "timeout": "0s"}) {
		t.Error("the pattern refuses 0s; the test's note is out of date")
	}
	check("session_wait", "timeout", ids, durations,
		func(v string) error { _, _, err := boundedWait(v, "40m", maxWait, "timeout"); return err })
	check("session_monitor", "for", ids, durations,
		func(v string) error { _, _, err := boundedWait(v, "45s", maxWait, "for"); return err })
	for _, tool := range []string{"verify", "consolidate", "e2e", "review"} {
		base := map[string]any{"project": "p"}
		if tool == "verify" {
			base["wp"] = "WP1"
		}
		check(tool, "wait", base, append(durations, "0", "0s", "-0s"),
			func(v string) error { _, err := longWait(v); return err })
	}
	ons := []string{"turn-end", "idle:15m", "idle:1h30m", "idle:", "idle:15", "idle", "turn-end ", "exit", "idle:-1m"}
	check("policy_attach", "on", map[string]any{"sessions": []string{"s-1"}, "do": "kill"}, ons,
		func(v string) error { _, err := sessions.ParseTrigger(v); return err })
	dos := []string{"verify", "verify,checkpoint", "verify, kill", "prompt-file:next.md", "notify,dispatch",
		"", "verify,", "prompt-file:", "verify:x", "bogus", "kill,,kill", "checkpoint:1"}
	check("policy_attach", "do", map[string]any{"sessions": []string{"s-1"}}, dos,
		func(v string) error { _, err := sessions.ParseActions(v); return err })
}

// session_start's schema cannot say "adapter or profile" at its top (see
// above); its description and the two properties' say it instead, and
// the handler refuses neither with the same words.
func TestStartSaysWhatIsRequired(t *testing.T) {
	for _, tl := range listTools(t, RoleSupervisor) {
		if tl.Name != "session_start" {
			continue
		}
		props := schemaMap(t, tl.InputSchema)["properties"].(map[string]any)
		for _, k := range []string{"adapter", "profile", "dir", "worktree"} {
			d, _ := props[k].(map[string]any)["description"].(string)
			if !strings.Contains(d, "required") && !strings.Contains(d, "exactly one") {
				t.Errorf("%s does not say it (or its alternative) is required: %q", k, d)
			}
		}
		if !strings.Contains(tl.Description, "adapter or profile") {
			t.Errorf("the description does not say adapter or profile is required: %q", tl.Description)
		}
		return
	}
	t.Fatal("no session_start")
}
