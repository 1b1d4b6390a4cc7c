// Package sessions runs executor sessions in a small daemon that outlives
// the command that started them, and records their lifecycle in the ledger.
// Raw output stays local under the common git dir.
package sessions

import (
	"crypto/rand"
	"encoding/hex"
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
	ExitCode     *int      `json:"exit_code,omitempty"`
	Failure      string    `json:"failure,omitempty"`
	StderrTail   string    `json:"stderr_tail,omitempty"`
	Warnings     []string  `json:"warnings,omitempty"`
	Faults       []string  `json:"faults,omitempty"`
	OutputBytes  int64     `json:"output_bytes"`
	LastSeq      uint64    `json:"last_seq"`
	Transitions  int       `json:"transitions"`
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

func newID() string {
	var b [6]byte
	rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}

// Store keeps session records and raw output under the common git dir.
type Store struct {
	Dir string // <common>/agentproto/sessions
}

// NewStore returns the store of a repository.
func NewStore(common string) Store {
	return Store{Dir: filepath.Join(common, "agentproto", "sessions")}
}

func (s Store) sessionDir(id string) string { return filepath.Join(s.Dir, id) }

// OutputPath is the raw output of a session (private to this machine).
func (s Store) OutputPath(id string) string { return filepath.Join(s.sessionDir(id), "output.log") }

// Save writes a record atomically.
func (s Store) Save(r *Record) error {
	dir := s.sessionDir(r.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "meta.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "meta.json"))
}

// Load reads one record.
func (s Store) Load(id string) (*Record, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(s.sessionDir(id), "meta.json"))
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
func (s Store) All() ([]*Record, error) {
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
