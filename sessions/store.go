// Package sessions is what the rest of agentproto knows of executor
// sessions: the Client of the sessions daemon and its protocol, and the
// session records with a read-only View of them. The daemon that runs the
// sessions, and alone writes their records, is sessions/daemon. Raw output
// stays local under the common git dir.
package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/spend"
)

// Record is what is known of a session; it is kept on disk as meta.json.
type Record struct {
	ID           string    `json:"id"`
	Label        string    `json:"label,omitempty"`
	Adapter      string    `json:"adapter"`
	Model        string    `json:"model,omitempty"`
	Profile      string    `json:"profile,omitempty"`
	Dir          string    `json:"dir"`
	Worktree     string    `json:"worktree,omitempty"`
	State        string    `json:"state"`
	Turns        int       `json:"turns"`
	Created      time.Time `json:"created"`
	LastActivity time.Time `json:"last_activity"`
	Pid          int       `json:"pid,omitempty"`
	// Released: the session is settled and its adapter process was let
	// go (it said a new one can go on from where it left); the next
	// prompt starts a new one. Pid is then 0.
	Released    bool     `json:"released,omitempty"`
	ExitCode    *int     `json:"exit_code,omitempty"`
	Failure     string   `json:"failure,omitempty"`
	StderrTail  string   `json:"stderr_tail,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	Faults      []string `json:"faults,omitempty"`
	OutputBytes int64    `json:"output_bytes"`
	LastSeq     uint64   `json:"last_seq"`
	Transitions int      `json:"transitions"`
	// Deadline is when the daemon ends the session (StartArgs.Deadline).
	Deadline time.Time `json:"deadline,omitzero"`
	// Capabilities are what the session has, for authority checks: what
	// the session declared once its agent said (CapabilitiesFrom
	// "session"), else what its adapter declares ("adapter").
	Capabilities     []string `json:"capabilities,omitempty"`
	CapabilitiesFrom string   `json:"capabilities_from,omitempty"`
	// AdapterCapabilities are what the adapter declares, the most a
	// session of it may have.
	AdapterCapabilities []string `json:"adapter_capabilities,omitempty"`
	// Sandbox is how the session's processes were confined: "landlock",
	// or "none" with SandboxNote saying why.
	Sandbox     string `json:"sandbox,omitempty"`
	SandboxNote string `json:"sandbox_note,omitempty"`
	// Usage is what each turn used as its agent reported it (a turn it
	// reported nothing of is Unknown, never zero); Spend sums it.
	Usage []spend.Turn `json:"usage,omitempty"`
	Spend spend.Total  `json:"spend,omitzero"`
}

// Where a record's Capabilities come from.
const (
	CapabilitiesFromAdapter = "adapter" // its Describe, an upper bound
	CapabilitiesFromSession = "session" // the session's own declaration
)

var idPattern = lazyre.New(`^s-[0-9a-f]{12}$`)

// ValidateID reports why id is not a session id.
func ValidateID(id string) error {
	if !idPattern.MatchString(id) {
		return fault.Invalidf("%q is not a session id (see git agentproto sessions ls)", id)
	}
	return nil
}

// View reads the session records and raw output kept under the common
// git dir. It never writes: the daemon alone does (sessions/daemon).
type View struct {
	Dir string // <common>/agentproto/sessions
}

// OpenView returns the view of a repository's sessions.
func OpenView(common string) View {
	return View{Dir: filepath.Join(common, "agentproto", "sessions")}
}

// SessionDir is the directory of a session's record and output.
func (s View) SessionDir(id string) string { return filepath.Join(s.Dir, id) }

// OutputPath is the raw output of a session (private to this machine).
func (s View) OutputPath(id string) string { return filepath.Join(s.SessionDir(id), "output.log") }

// Load reads one record.
func (s View) Load(id string) (*Record, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(s.SessionDir(id), "meta.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fault.Invalidf("no session %s", id)
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("session %s: meta.json is corrupt: %v", id, err)
	}
	return &r, nil
}

// All returns every record, oldest first.
func (s View) All() ([]*Record, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Record
	for _, e := range entries {
		if !idPattern.MatchString(e.Name()) {
			continue
		}
		r, err := s.Load(e.Name())
		if err != nil {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}
