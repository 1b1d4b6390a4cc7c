package gitstore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Seals tell the events this clone wrote from look-alikes. Every event
// this clone appends carries an HMAC over its writer, record id and
// content, keyed by a secret of the clone kept outside the repository, in
// the user's state directory: the sandbox lets a session or a judged run
// write objects into the repository, but it neither reads nor writes there
// (docs/sandbox.md). So a commit made with git plumbing on the ledger ref,
// or a peer's event, carries no seal this clone can check: ledger verify
// reports the first on the clone's own ref, and readers of the kinds
// declared Sealed refuse both (CheckSeal).
//
// A process of the same user outside the sandbox can read the key as it
// can read everything else of the user's: seals hold against what runs
// confined, and against hand-made commits, not against that user.

// sealSchema versions what a seal covers.
const sealSchema = "agentproto.seal/v1"

// SealError says why an event of a sealed kind is not trusted as written
// by this clone.
type SealError struct {
	ID, Kind, Writer string
	// Foreign is set for another writer's event: no seal of it can be
	// checked here, whoever wrote it.
	Foreign bool
	Why     string
}

func (e *SealError) Error() string { return fmt.Sprintf("record %s (%s) %s", e.ID, e.Kind, e.Why) }

// SealOf is the seal of e under key: an HMAC-SHA256 over its writer, its
// record id and what it says (kind, goal, agent, data, attachments).
func SealOf(key []byte, e *Event) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s\x00%s\x00%s\x00%s", sealSchema, e.Writer, e.ID, e.contentKey())
	return hex.EncodeToString(m.Sum(nil))
}

// CheckSealWith is the check of a store whose writer is writer and whose
// key is key, for a store with no events written before seals (the fake).
func CheckSealWith(key []byte, writer string, e *Event) error {
	if !IsSealed(e.Kind) {
		return nil
	}
	if e.Writer != writer {
		return foreignSeal(e, writer)
	}
	return badSeal(e, key)
}

func foreignSeal(e *Event, writer string) error {
	if writer == "" {
		writer = "none yet"
	}
	return &SealError{ID: e.ID, Kind: e.Kind, Writer: e.Writer, Foreign: true,
		Why: fmt.Sprintf("was written by writer %s, not by this clone (%s): its seal cannot be checked here", e.Writer, writer)}
}

// badSeal is nil when e carries its seal under key, else why not.
func badSeal(e *Event, key []byte) error {
	if e.Seal != "" && hmac.Equal([]byte(SealOf(key, e)), []byte(e.Seal)) {
		return nil
	}
	why := "carries a seal that does not match: this clone's ledger did not write it as it stands"
	if e.Seal == "" {
		why = "carries no seal: this clone's ledger did not write it (a commit made by hand on its ref?)"
	}
	return &SealError{ID: e.ID, Kind: e.Kind, Writer: e.Writer, Why: why}
}

// sealState is what a Ledger remembers of its seal key.
type sealState struct {
	mu     sync.Mutex
	writer string
	key    []byte
	since  string            // the writer ref's tip when the key was made
	legacy map[string]string // record id -> content key, of the events under since
}

// sealKeyFile is the key as kept on disk. Since is the tip of the writer
// ref when the key was made: what lies under that commit (which no later
// commit can change) was written before this clone sealed its events.
type sealKeyFile struct {
	Key   string `json:"key"`
	Since string `json:"since,omitempty"`
}

// sealDir is where the clones' keys are kept: the user's state directory,
// outside every repository and outside what the sandbox reads.
func sealDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentproto", "seals"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fmt.Errorf("no place for the ledger's seal key: set HOME or XDG_STATE_HOME")
	}
	return filepath.Join(home, ".local", "state", "agentproto", "seals"), nil
}

// sealKey returns writer's key and since, making the key the first time
// with since the tip tip() returns. Two processes racing here agree: the
// first link wins and both read it back.
func (l *Ledger) sealKey(writer string, tip func() (string, error)) ([]byte, string, error) {
	s := l.seal
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.writer == writer && s.key != nil {
		return s.key, s.since, nil
	}
	dir, err := sealDir()
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, writer+".json")
	k, err := readSealKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		k, err = makeSealKey(dir, path, tip)
	}
	if err != nil {
		return nil, "", fmt.Errorf("the ledger's seal key %s: %w", path, err)
	}
	key, err := hex.DecodeString(k.Key)
	if err != nil || len(key) != 32 {
		return nil, "", fmt.Errorf("the ledger's seal key %s is malformed", path)
	}
	s.writer, s.key, s.since, s.legacy = writer, key, k.Since, nil
	return key, k.Since, nil
}

func readSealKey(path string) (*sealKeyFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var k sealKeyFile
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("malformed: %v", err)
	}
	return &k, nil
}

func makeSealKey(dir, path string, tip func() (string, error)) (*sealKeyFile, error) {
	since, err := tip()
	if err != nil {
		return nil, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	data, _ := json.Marshal(sealKeyFile{Key: hex.EncodeToString(b[:]), Since: since})
	tmp, err := os.CreateTemp(dir, "key-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return readSealKey(path)
}

// sealFor returns what seals each event of an append on parent, writer's
// tip. Every event is sealed, so that ledger verify tells a commit made by
// hand from it; without a key, an event of a Sealed kind is refused and
// the others go unsealed, with one warning. The key is made with the first
// append that misses it, so what the writer wrote before lies under since.
func (l *Ledger) sealFor(writer, parent string, warn *Warnings) func(e *Event) error {
	key, _, err := l.sealKey(writer, func() (string, error) { return parent, nil })
	warned := false
	return func(e *Event) error {
		switch {
		case err == nil:
			e.Seal = SealOf(key, e)
		case IsSealed(e.Kind):
			return fmt.Errorf("sealing %s: %w", e.ID, err)
		case !warned:
			warn.add(err.Error())
			warned = true
		}
		return nil
	}
}

// ownWriter is this clone's writer id, "" before it has one.
func (l *Ledger) ownWriter() (string, error) {
	l.seal.mu.Lock()
	w := l.seal.writer
	l.seal.mu.Unlock()
	if w != "" {
		return w, nil
	}
	return ReadWriterID(l.repo.CommonDir)
}

// ownTip reads this clone's writer ref; "" when it has none.
func (l *Ledger) ownTip(writer string) func() (string, error) {
	return func() (string, error) {
		tip, err := l.refs.Read(LedgerRefPrefix + writer)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return tip, err
	}
}

// CheckSeal reports whether e is an event this clone wrote: nil for one
// carrying its seal, one written before the clone held a key, and one of a
// kind that is not sealed; a *SealError for anything else. It makes the
// key the first time it needs one.
func (l *Ledger) CheckSeal(e *Event) error {
	if !IsSealed(e.Kind) {
		return nil
	}
	return l.checkOwn(e)
}

// checkOwn is CheckSeal for an event of any kind.
func (l *Ledger) checkOwn(e *Event) error {
	writer, err := l.ownWriter()
	if err != nil {
		return err
	}
	if writer == "" || e.Writer != writer {
		return foreignSeal(e, writer)
	}
	key, since, err := l.sealKey(writer, l.ownTip(writer))
	if err != nil {
		return err
	}
	bad := badSeal(e, key)
	if bad == nil || since == "" {
		return bad
	}
	legacy, err := l.legacyEvents(writer, since)
	if err != nil {
		return err
	}
	if ck, ok := legacy[e.ID]; ok && ck == e.contentKey() {
		return nil
	}
	return bad
}

// legacyEvents reads, once, the events of writer's ref under since: those
// it wrote before it sealed anything.
func (l *Ledger) legacyEvents(writer, since string) (map[string]string, error) {
	l.seal.mu.Lock()
	defer l.seal.mu.Unlock()
	if l.seal.legacy != nil {
		return l.seal.legacy, nil
	}
	commits, err := l.repo.Log(since)
	if err != nil {
		return nil, fmt.Errorf("reading the events written before seals: %w", err)
	}
	legacy := map[string]string{}
	for _, c := range commits {
		if e, err := decodeEnvelope(envelopeOf([]byte(c.Message))); err == nil && e.Writer == writer {
			legacy[e.ID] = e.contentKey()
		}
	}
	l.seal.legacy = legacy
	return legacy, nil
}

// UnsealedSince lists what was added to this clone's writer ref after
// commit since (everything on it when since is "") that this clone's
// ledger did not write: each event without its valid seal, whatever its
// kind, as "KIND ID", and each commit that is no event, by commit. Such
// commits were made by hand on the ref.
func (l *Ledger) UnsealedSince(since string) ([]string, error) {
	writer, err := l.ownWriter()
	if err != nil || writer == "" {
		return nil, err
	}
	ref := LedgerRefPrefix + writer
	if tip, err := l.ownTip(writer)(); err != nil || tip == "" || tip == since {
		return nil, err
	}
	rng := ref
	if since != "" {
		rng = since + ".." + ref
	}
	commits, err := l.repo.Log(rng)
	if err != nil {
		return nil, err
	}
	var found []string
	for i := len(commits) - 1; i >= 0; i-- { // oldest first
		commit := commits[i].ID
		e, err := decodeEnvelope(envelopeOf([]byte(commits[i].Message)))
		if err != nil {
			found = append(found, "commit "+commit+" (no event)")
			continue
		}
		var se *SealError
		if err := l.checkOwn(e); errors.As(err, &se) {
			found = append(found, e.Kind+" "+e.ID)
		} else if err != nil {
			return nil, err
		}
	}
	return found, nil
}
