package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
)

// Report is an executor's final report, given in its output as a fenced
// block:
//
//	```agentproto-report
//	{"wp": "WP1",
//	 "files": ["lib/upper.sh"],
//	 "design_choices": ["tr for case mapping"],
//	 "wiring": [{"file": "registry.txt", "line": "upper lib/upper.sh"},
//	            {"file": "package.json", "snippet": "{\"scripts\": {\"upper\": \"sh lib/upper.sh\"}}"}],
//	 "claims": ["command:upper"],
//	 "exit_codes": [{"command": "sh test.sh", "exit_code": 0}]}
//	```
//
// wiring lists the exact lines a shared file needs; claims names the
// commands or symbols the WP introduces, so consolidate can see two WPs
// claiming one name.
type Report struct {
	WP            string     `json:"wp"`
	Files         []string   `json:"files"`
	DesignChoices []string   `json:"design_choices"`
	Wiring        []Wiring   `json:"wiring"`
	Claims        []string   `json:"claims,omitempty"`
	ExitCodes     []ExitCode `json:"exit_codes"`
	// Stopped is set when the executor reached a fork only the
	// supervisor may decide: the WP then waits for a decision, it has
	// not failed.
	Stopped *Stop `json:"stopped,omitempty"`
}

// Stop is the question an executor stopped on, the options it saw and
// the one it would take by default.
type Stop struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
	Default  string   `json:"default,omitempty"`
}

// Wiring is one line a shared file needs, or for a JSON, TOML or YAML
// file a snippet in its format holding the keys to add (and key paths to
// remove), which consolidate merges by key.
type Wiring struct {
	File    string   `json:"file"`
	Line    string   `json:"line,omitempty"`
	Snippet string   `json:"snippet,omitempty"`
	Remove  []string `json:"remove,omitempty"`
}

// ExitCode is a command the executor ran and its real exit code.
type ExitCode struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
}

const reportFence = "```agentproto-report"

// ParseReport finds the last report block in output. It returns nil and no
// error when there is none; a malformed block is an error naming why.
func ParseReport(output []byte) (*Report, error) {
	i := bytes.LastIndex(output, []byte(reportFence))
	if i < 0 {
		return nil, nil
	}
	body := output[i+len(reportFence):]
	j := bytes.Index(body, []byte("```"))
	if j < 0 {
		return nil, fmt.Errorf("the agentproto-report block is not closed")
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(body[:j]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("the agentproto-report block is not valid: %v", err)
	}
	for k, w := range r.Wiring {
		config := strings.TrimSpace(w.Snippet) != "" || len(w.Remove) > 0
		if strings.TrimSpace(w.File) == "" || config == (strings.TrimSpace(w.Line) != "") || strings.Contains(w.Line, "\n") {
			return nil, fmt.Errorf("wiring entry %d needs a file and one line, or a file and a snippet", k+1)
		}
	}
	if err := r.Stopped.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

func (s *Stop) check() error {
	if s == nil {
		return nil
	}
	if strings.TrimSpace(s.Question) == "" {
		return fmt.Errorf("stopped needs a question")
	}
	if s.Default == "" {
		return nil
	}
	for _, o := range s.Options {
		if o == s.Default {
			return nil
		}
	}
	if len(s.Options) > 0 {
		return fmt.Errorf("stopped: default %q is not one of the options", s.Default)
	}
	return nil
}

// waiting is the error dispatch ends with when a WP stopped on a
// question: its session stays alive for the answer.
func waiting(wp, project string, s *Stop) error {
	msg := fmt.Sprintf("%s is waiting for a decision: %s", wp, s.Question)
	if len(s.Options) > 0 {
		msg += fmt.Sprintf(" (options: %s", strings.Join(s.Options, " | "))
		if s.Default != "" {
			msg += "; default: " + s.Default
		}
		msg += ")"
	}
	return fault.Refusedf("%s; next: git agentproto plan answer %s %s --choice TEXT", msg, project, wp)
}
