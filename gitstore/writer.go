package gitstore

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/names"
)

// LedgerRefPrefix holds one ref per writer; readers take their union.
const LedgerRefPrefix = "refs/agentproto/ledger/"

// stateDir is where agentproto keeps per-clone state, shared by all worktrees.
func stateDir(common string) string { return filepath.Join(common, "agentproto") }

// ReadWriterID returns this clone's writer id, or "" if none was made yet.
func ReadWriterID(common string) (string, error) {
	b, err := os.ReadFile(filepath.Join(stateDir(common), "writer-id"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if !names.Dashed(id, 4, 64) {
		return "", fault.Invalidf("writer id %q in %s is malformed", id, filepath.Join(stateDir(common), "writer-id"))
	}
	return id, nil
}

// EnsureWriterID returns this clone's writer id, creating it once. Two
// processes racing here agree: the first link wins and both read it back.
func EnsureWriterID(common string) (id string, created bool, err error) {
	if id, err := ReadWriterID(common); err != nil || id != "" {
		return id, false, err
	}
	if err := os.MkdirAll(stateDir(common), 0o755); err != nil {
		return "", false, err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", false, err
	}
	fresh := "w-" + hex.EncodeToString(b[:])
	tmp, err := os.CreateTemp(stateDir(common), "writer-id-")
	if err != nil {
		return "", false, err
	}
	tmp.WriteString(fresh + "\n")
	tmp.Close()
	defer os.Remove(tmp.Name())
	err = os.Link(tmp.Name(), filepath.Join(stateDir(common), "writer-id"))
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", false, err
	}
	id, err = ReadWriterID(common)
	return id, err == nil && id == fresh, err
}

// WriterRef returns the ref this clone appends to, or "" before the first
// append or init.
func (l *Ledger) WriterRef() (string, error) {
	w, err := ReadWriterID(l.repo.CommonDir)
	if err != nil || w == "" {
		return "", err
	}
	return LedgerRefPrefix + w, nil
}
