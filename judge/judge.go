// Package judge is the review engine: it reads a change — the trees of its
// base and head, the diff between them, the gate that must pass on it — and
// says what is wrong with it as findings. The tests are heard from their
// runners at both ends, the code is parsed (Go, JavaScript and TypeScript,
// Python, bats), the gate and its scripts are read for masked exit codes,
// and agent-written code runs only in the sandbox.
//
// It knows diffs, files, gates and findings; plans, sessions, the ledger
// and worktrees are the pipeline's, which calls judge and records what it
// says.
package judge

// Finding is one problem review, or a pipeline step, found.
type Finding struct {
	Code    string `json:"code"`
	WP      string `json:"wp,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	// Severity is "error" (behaviour is lost) or "warning".
	Severity string `json:"severity,omitempty"`
}

// AnyError says whether any finding is an error; a finding with no
// severity is one.
func AnyError(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity != "warning" {
			return true
		}
	}
	return false
}

// Gate is one run of a gate command.
type Gate struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Duration string `json:"duration"`
	Log      string `json:"log"` // attachment name
	Piped    bool   `json:"piped,omitempty"`
	// TimedOut: its bound ended it (ExitCode 124); never a pass.
	TimedOut bool `json:"timed_out,omitempty"`
}

// GateRun is a gate re-run by review.
type GateRun struct {
	Where string `json:"where"` // WP id or "integration"
	Gate  Gate   `json:"gate"`
}
