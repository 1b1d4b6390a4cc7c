package daemon

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/sessions"
)

// store is the writable side of the session records: the daemon alone
// saves them; everyone else reads them through a sessions.View.
type store struct{ sessions.View }

func newStore(common string) store { return store{sessions.OpenView(common)} }

// Save writes a record atomically.
func (s store) Save(r *sessions.Record) error {
	dir := s.SessionDir(r.ID)
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

// newID names a new session.
func newID() string {
	var b [6]byte
	rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}
