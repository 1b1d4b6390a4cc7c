package pipeline

import (
	"strings"
	"testing"
)

func TestParseReportStopped(t *testing.T) {
	r, err := ParseReport([]byte("```agentproto-report\n" + `{"wp":"WP1","files":[],"design_choices":[],"wiring":[],"exit_codes":[],"stopped":{"question":"tr or awk?","options":["tr","awk"],"default":"awk"}}` + "\n```\n"))
	if err != nil || r.Stopped == nil || r.Stopped.Question != "tr or awk?" || r.Stopped.Default != "awk" || len(r.Stopped.Options) != 2 {
		t.Fatalf("got %+v, %v", r, err)
	}
	for bad, want := range map[string]string{
		`"stopped":{"question":" "}`:                               "needs a question",
		`"stopped":{"question":"q","options":["a"],"default":"b"}`: "not one of the options",
		`"stopped":{"question":"q","choice":"a"}`:                  "unknown field",
		`"stopped":{"question":"q","options":"a"}`:                 "cannot unmarshal",
	} {
		_, err := ParseReport([]byte("```agentproto-report\n{\"wp\":\"WP1\"," + bad + "}\n```\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", bad, err, want)
		}
	}
}

func FuzzParseReport(f *testing.F) {
	f.Add([]byte("```agentproto-report\n{\"wp\":\"WP1\",\"stopped\":{\"question\":\"q\",\"options\":[\"a\"],\"default\":\"a\"}}\n```"))
	f.Add([]byte("```agentproto-report\n{\"wp\":\"WP1\",\"wiring\":[{\"file\":\"a\",\"line\":\"b\"}]}\n```"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReport(b)
		if err != nil || r == nil {
			return
		}
		if s := r.Stopped; s != nil && strings.TrimSpace(s.Question) == "" {
			t.Fatalf("a stop without a question was accepted: %+v", s)
		}
		for _, w := range r.Wiring {
			if strings.Contains(w.Line, "\n") {
				t.Fatalf("a wiring line with a newline was accepted: %q", w.Line)
			}
		}
	})
}

func TestParseReport(t *testing.T) {
	out := []byte("work...\n```agentproto-report\n{\"wp\":\"WP1\",\"files\":[\"a\"],\"design_choices\":[],\"wiring\":[{\"file\":\"go.mod\",\"line\":\"require x v1\"}],\"exit_codes\":[{\"command\":\"make\",\"exit_code\":0}]}\n```\n")
	r, err := ParseReport(out)
	if err != nil || r == nil || r.Wiring[0].Line != "require x v1" {
		t.Fatalf("r=%+v err=%v", r, err)
	}
	if r, err := ParseReport([]byte("no report here")); r != nil || err != nil {
		t.Fatalf("no block: %v %v", r, err)
	}
	for _, bad := range []string{
		"```agentproto-report\n{\"wp\":\"WP1\"\n```",
		"```agentproto-report\n{\"wp\":\"WP1\",\"bogus\":1}\n```",
		"```agentproto-report\n{\"wiring\":[{\"file\":\"\",\"line\":\"x\"}]}\n```",
		"```agentproto-report\n{}",
	} {
		if _, err := ParseReport([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
