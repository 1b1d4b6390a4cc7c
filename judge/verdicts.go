package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The LLM leg of review answers in one block, read here: a verdict on
// each static finding the brief numbered, and findings of its own. It is
// attached to a review and never makes one pass.

// ReviewerVerdicts is what a reviewer session answered.
type ReviewerVerdicts struct {
	Verdicts []FindingVerdict `json:"verdicts"`
	Findings []Finding        `json:"findings"`
	// Problem says why the answer could not be read, when it could not.
	Problem string `json:"problem,omitempty"`
	// Void says why the verdicts do not count: the reviewer changed
	// Changed in its worktree. Verdicts and findings are then empty; the
	// session's whole output stays attached.
	Void    string   `json:"void,omitempty"`
	Changed []string `json:"changed,omitempty"`
}

// FindingVerdict is the reviewer's word on one static finding.
type FindingVerdict struct {
	Finding string `json:"finding"` // F1, F2, … in the brief's order
	Verdict string `json:"verdict"` // confirmed or refuted
	Why     string `json:"why"`
}

// ReviewFence opens the block a reviewer answers in.
const ReviewFence = "```agentproto-review"

// ParseReviewerVerdicts reads the last agentproto-review block of a
// reviewer's output. n is the number of static findings the brief
// numbered. A missing or malformed block, a verdict for no finding, or a
// verdict other than confirmed/refuted is named in Problem; what could
// be read is kept.
func ParseReviewerVerdicts(out []byte, n int) ReviewerVerdicts {
	v := ReviewerVerdicts{Verdicts: []FindingVerdict{}, Findings: []Finding{}}
	i := bytes.LastIndex(out, []byte(ReviewFence))
	if i < 0 {
		v.Problem = "the reviewer gave no " + ReviewFence[3:] + " block"
		return v
	}
	body := out[i+len(ReviewFence):]
	j := bytes.Index(body, []byte("```"))
	if j < 0 {
		v.Problem = "the " + ReviewFence[3:] + " block is not closed"
		return v
	}
	var got ReviewerVerdicts
	dec := json.NewDecoder(bytes.NewReader(body[:j]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		v.Problem = "the " + ReviewFence[3:] + " block is not valid: " + err.Error()
		return v
	}
	seen := map[string]bool{}
	var problems []string
	for _, fv := range got.Verdicts {
		var k int
		if _, err := fmt.Sscanf(fv.Finding, "F%d", &k); err != nil || k < 1 || k > n || fmt.Sprintf("F%d", k) != fv.Finding {
			problems = append(problems, fmt.Sprintf("a verdict names %q, which is no static finding (F1..F%d)", fv.Finding, n))
			continue
		}
		if fv.Verdict != "confirmed" && fv.Verdict != "refuted" {
			problems = append(problems, fmt.Sprintf("%s: verdict %q is neither confirmed nor refuted", fv.Finding, fv.Verdict))
			continue
		}
		if seen[fv.Finding] {
			problems = append(problems, fv.Finding+" is judged twice")
			continue
		}
		seen[fv.Finding] = true
		v.Verdicts = append(v.Verdicts, fv)
	}
	for k := 1; k <= n; k++ {
		if !seen[fmt.Sprintf("F%d", k)] {
			problems = append(problems, fmt.Sprintf("F%d has no verdict", k))
		}
	}
	for _, f := range got.Findings {
		if strings.TrimSpace(f.Message) == "" {
			problems = append(problems, "a reviewer finding has no message")
			continue
		}
		if f.Severity != "warning" {
			f.Severity = "error"
		}
		if f.Code == "" {
			f.Code = "reviewer"
		}
		v.Findings = append(v.Findings, f)
	}
	v.Problem = strings.Join(problems, "; ")
	return v
}
