package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pipeline"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/jsondoc"
)

func resolvedFor[In any](t testing.TB) *jsonschema.Resolved {
	t.Helper()
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDecodeArgsRefusesWhatTheSchemaDoesNotName(t *testing.T) {
	r := resolvedFor[startIn](t)
	token := "ghp_" + strings.Repeat("xY7", 12)
	cases := []struct {
		name, args string
		kind       fault.Kind
		msg        string
	}{
		{"unknown argument", `{"prompt":"p","force":true}`, fault.Invalid, `unknown argument "force"`},
		{"unknown worktree field", `{"prompt":"p","worktree":{"slug":"a","branch":"b"}}`, fault.Invalid, "worktree.branch"},
		{"wrong type", `{"prompt":7}`, fault.Invalid, `"prompt" must be a string`},
		{"missing required", `{"adapter":"x"}`, fault.Invalid, "prompt"},
		{"not an object", `[1]`, fault.Invalid, "arguments"},
		{"credential", `{"prompt":"use ` + token + `"}`, fault.Refused, "$.prompt"},
		{"escaped credential", `{"label":"\u0067hp_` + strings.Repeat("xY7", 12) + `","prompt":"p"}`, fault.Refused, "$.label"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeArgs[startIn]([]byte(c.args), r)
			if err == nil || fault.KindOf(err) != c.kind || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v (kind %d), want kind %d naming %q", err, fault.KindOf(err), c.kind, c.msg)
			}
			if strings.Contains(err.Error(), "xY7xY7") {
				t.Fatalf("the error echoes the credential: %v", err)
			}
		})
	}
	in, err := decodeArgs[startIn]([]byte(`{"prompt":"p","worktree":"wp1"}`), r)
	if err != nil || in.Worktree.Slug != "wp1" {
		t.Fatalf("a slug worktree: %+v %v", in, err)
	}
	in, err = decodeArgs[startIn]([]byte(`{"prompt":"p","worktree":{"slug":"wp1","base":"main"}}`), r)
	if err != nil || in.Worktree != (worktreeArg{Slug: "wp1", Base: "main"}) {
		t.Fatalf("an object worktree: %+v %v", in, err)
	}
}

func TestStampedPutsTheSchemaFirst(t *testing.T) {
	b, err := stamped(map[string]any{"ok": true}, jsondoc.Schema("plan check"))
	if err != nil || string(b) != `{"schema":"agentproto.plan.check/v1","ok":true}` {
		t.Fatalf("object: %s %v", b, err)
	}
	b, _ = stamped([]map[string]int{{"a": 1}}, jsondoc.Schema("worktree ls"))
	if string(b) != `{"schema":"agentproto.worktree.ls/v1","items":[{"schema":"agentproto.worktree.ls/v1","a":1}]}` {
		t.Fatalf("list: %s", b)
	}
	var nilList []int
	if b, _ = stamped(nilList, jsondoc.Schema("sessions ls")); string(b) != `{"schema":"agentproto.sessions.ls/v1","items":[]}` {
		t.Fatalf("empty list: %s", b)
	}
	own := []json.RawMessage{json.RawMessage(`{"schema":"agentproto.event/v1","id":"x"}`)}
	if b, _ = stamped(own, jsondoc.Schema("ledger log")); !strings.Contains(string(b), `"items":[{"schema":"agentproto.event/v1","id":"x"}]`) {
		t.Fatalf("an envelope lost its own schema: %s", b)
	}
}

func TestBoundedWaitCapsOneCall(t *testing.T) {
	d, capped, err := boundedWait("40m", "40m", maxWait, "timeout")
	if err != nil || !capped || d != maxWait {
		t.Fatalf("40m: %v %v %v", d, capped, err)
	}
	d, capped, err = boundedWait("", "40m", maxWait, "timeout")
	if err != nil || !capped || d != maxWait {
		t.Fatalf("default: %v %v %v", d, capped, err)
	}
	d, capped, err = boundedWait("3s", "40m", maxWait, "timeout")
	if err != nil || capped || d != 3*time.Second {
		t.Fatalf("3s: %v %v %v", d, capped, err)
	}
	for _, bad := range []string{"40", "-1s", "0s", "soon"} {
		if _, _, err := boundedWait(bad, "40m", maxWait, "timeout"); fault.KindOf(err) != fault.Invalid {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

func TestURIPartsRefusesEscapes(t *testing.T) {
	good, err := uriParts("agentproto://plan/demo/WP1-brief.md", "plan", 2)
	if err != nil || good[0] != "demo" || good[1] != "WP1-brief.md" {
		t.Fatalf("good: %v %v", good, err)
	}
	for _, u := range []string{"agentproto://plan/demo/../x", "agentproto://plan/demo", "agentproto://session/demo/x",
		"file://plan/a/b", "agentproto://plan//b", "agentproto://plan/a/b/c", "agentproto://plan/a/%2e%2e"} {
		if _, err := uriParts(u, "plan", 2); err == nil {
			t.Fatalf("%s accepted", u)
		}
	}
}

func FuzzURIParts(f *testing.F) {
	f.Add("agentproto://plan/demo/WP1-brief.md")
	f.Add("agentproto://plan/a/%2e%2e")
	f.Add("agentproto://plan/a/b%2fc")
	f.Fuzz(func(t *testing.T, uri string) {
		parts, err := uriParts(uri, "plan", 2)
		if err != nil {
			return
		}
		for _, p := range parts {
			if p == "" || p == "." || p == ".." || strings.ContainsAny(p, "/\\\x00") {
				t.Fatalf("%q gave segment %q", uri, p)
			}
		}
	})
}

func FuzzDecodeArgs(f *testing.F) {
	f.Add(`{"prompt":"p","worktree":{"slug":"a"}}`)
	f.Add(`{"prompt":"p","worktree":"a","x":1}`)
	f.Add(`{"ids":["s-000000000000"]}`)
	r := resolvedFor[startIn](f)
	allowed := map[string]bool{"adapter": true, "profile": true, "model": true, "dir": true, "worktree": true, "prompt": true, "label": true, "no_ping": true}
	f.Fuzz(func(t *testing.T, args string) {
		_, err := decodeArgs[startIn]([]byte(args), r)
		if err != nil {
			if k := fault.KindOf(err); k != fault.Invalid && k != fault.Refused {
				t.Fatalf("%q: kind %d: %v", args, k, err)
			}
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(args), &m) != nil {
			t.Fatalf("%q accepted but not an object", args)
		}
		for k := range m {
			if !allowed[k] {
				t.Fatalf("%q accepted with unknown argument %q", args, k)
			}
		}
	})
}

// A refusal whose hint sits under its first line keeps the hint: the
// client reads the command that lifts it.
func TestErrorResultKeepsTheHintBelowTheFirstLine(t *testing.T) {
	err := fault.Refusedf("[policies] notify is not trusted:\n  notify = \"sh x\"\nreview it, then run: git agentproto policy trust")
	res := errorResult(err, nil)
	var d errorDoc
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &d)
	if !res.IsError || d.ExitCode != int(fault.Refused) || d.Error != `[policies] notify is not trusted: notify = "sh x" review it, then run: git agentproto policy trust` {
		t.Fatalf("error doc: %+v", d)
	}
	long := oneLine(strings.Repeat("é", maxMessage))
	if len(long) > maxMessage+len("…") || !strings.HasSuffix(long, "…") || !utf8.ValidString(long) {
		t.Fatalf("a long message is cut on a rune: %d bytes", len(long))
	}
}

func TestDispatchStatusCountsEachVerdict(t *testing.T) {
	got := verdictCounts(map[string]pipeline.Verification{"WP0": {Verdict: pipeline.Pass}, "WP1": {Verdict: pipeline.Pass}, "WP2": {Verdict: pipeline.WaitingDecision}})
	if got != "2 pass, 1 waiting_decision" {
		t.Errorf("got %q", got)
	}
	if got := verdictCounts(nil); got != "none verified yet" {
		t.Errorf("got %q", got)
	}
}
