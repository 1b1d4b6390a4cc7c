package judge

import (
	"strings"
	"testing"
)

func TestParseReviewerVerdicts(t *testing.T) {
	block := func(s string) []byte { return []byte("notes\n```agentproto-review\n" + s + "\n```\n") }
	cases := []struct {
		name    string
		out     []byte
		n       int
		verdict int    // verdicts kept
		problem string // part of Problem, "" for none
	}{
		{"all judged", block(`{"verdicts":[{"finding":"F1","verdict":"confirmed","why":"a"},{"finding":"F2","verdict":"refuted","why":"b"}],"findings":[]}`), 2, 2, ""},
		{"one left", block(`{"verdicts":[{"finding":"F1","verdict":"confirmed","why":"a"}],"findings":[]}`), 2, 1, "F2 has no verdict"},
		{"unknown finding", block(`{"verdicts":[{"finding":"F9","verdict":"confirmed","why":"a"}],"findings":[]}`), 1, 0, `"F9", which is no static finding`},
		{"leading zero", block(`{"verdicts":[{"finding":"F01","verdict":"confirmed","why":"a"}],"findings":[]}`), 1, 0, "no static finding"},
		{"bad verdict", block(`{"verdicts":[{"finding":"F1","verdict":"maybe","why":"a"}],"findings":[]}`), 1, 0, "neither confirmed nor refuted"},
		{"twice", block(`{"verdicts":[{"finding":"F1","verdict":"refuted","why":"a"},{"finding":"F1","verdict":"confirmed","why":"b"}],"findings":[]}`), 1, 1, "judged twice"},
		{"unknown field", block(`{"verdicts":[],"findings":[],"pass":true}`), 0, 0, "not valid"},
		{"no block", []byte("looks fine to me"), 1, 0, "no agentproto-review block"},
		{"not closed", []byte("```agentproto-review\n{}"), 0, 0, "not closed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := ParseReviewerVerdicts(c.out, c.n)
			if len(v.Verdicts) != c.verdict || (c.problem == "") != (v.Problem == "") || !strings.Contains(v.Problem, c.problem) {
				t.Fatalf("%+v", v)
			}
		})
	}
	v := ParseReviewerVerdicts(block(`{"verdicts":[],"findings":[{"file":"a.go","line":2,"message":"x"},{"message":" "}]}`), 0)
	if len(v.Findings) != 1 || v.Findings[0].Severity != "error" || v.Findings[0].Code != "reviewer" || !strings.Contains(v.Problem, "no message") {
		t.Fatalf("reviewer findings %+v", v)
	}
}

func FuzzParseReviewerVerdicts(f *testing.F) {
	f.Add([]byte("```agentproto-review\n{\"verdicts\":[{\"finding\":\"F1\",\"verdict\":\"refuted\",\"why\":\"\"}],\"findings\":[]}\n```"), 1)
	f.Add([]byte("```agentproto-review\n{\"verdicts\":[{\"finding\":\"F-1\"}]}```"), 3)
	f.Fuzz(func(t *testing.T, out []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		v := ParseReviewerVerdicts(out, n)
		for _, fv := range v.Verdicts {
			if fv.Verdict != "confirmed" && fv.Verdict != "refuted" {
				t.Fatalf("verdict kept: %+v", fv)
			}
		}
	})
}
