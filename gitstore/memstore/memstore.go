// Package memstore is an in-memory gitstore.Store, for tests of features
// that record and read events without a git repository. It keeps the
// contract of the git ledger (gitstore/storetest holds both to it): the
// same checks before a write, all-or-nothing batches, idempotent record
// ids, the same order and the same query semantics.
package memstore

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// Writer is the writer id every event of a Store carries.
const Writer = "memory"

// Store holds events in memory, in append order, which is ledger order:
// one writer whose clock only moves forward.
type Store struct {
	// Now stamps new events; nil uses time.Now.
	Now func() time.Time

	mu     sync.Mutex
	events []*gitstore.Event
	byID   map[string]int
	key    []byte // seals the events of sealed kinds, as the ledger does
}

var _ gitstore.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	key := make([]byte, 32)
	rand.Read(key)
	return &Store{byID: map[string]int{}, key: key}
}

// Append records drafts of feature kinds (see gitstore.Store).
func (s *Store) Append(drafts []gitstore.Draft) (*gitstore.AppendResult, error) {
	return s.append(drafts, false)
}

// AppendUser records drafts of user kinds, as the ledger's user path does.
func (s *Store) AppendUser(drafts []gitstore.Draft) (*gitstore.AppendResult, error) {
	return s.append(drafts, true)
}

func (s *Store) append(drafts []gitstore.Draft, user bool) (*gitstore.AppendResult, error) {
	if err := gitstore.Validate(drafts, user); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res := &gitstore.AppendResult{Writer: Writer}
	var fresh []*gitstore.Event
	inBatch := map[string]*gitstore.Event{}
	lamport := uint64(len(s.events))
	stamp := s.now().UTC().Format(time.RFC3339Nano)
	for i := range drafts {
		d := &drafts[i]
		e := &gitstore.Event{Schema: gitstore.Schema, ID: d.ID, Kind: d.Kind, Writer: Writer, Time: stamp,
			Goal: d.Goal, Agent: d.Agent, Data: bytes.Clone(d.Data), Attachments: attachments(d.Attachments)}
		prev, held := inBatch[d.ID]
		if i, ok := s.byID[d.ID]; ok {
			prev, held = s.events[i], true
		}
		if held {
			if !sameContent(prev, e) {
				return nil, fault.Conflictf("record id %s is already recorded with other content; nothing was written", d.ID)
			}
			res.Existing = append(res.Existing, d.ID)
			continue
		}
		lamport++
		e.Lamport = lamport
		e.Seal = gitstore.SealOf(s.key, e)
		inBatch[d.ID] = e
		fresh = append(fresh, e)
		res.Written = append(res.Written, d.ID)
	}
	for _, e := range fresh {
		s.byID[e.ID] = len(s.events)
		s.events = append(s.events, e)
	}
	res.Tip = fmt.Sprintf("mem:%d", len(s.events))
	return res, nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// attachments describes attachment content as the ledger would store it:
// the git blob id and the SHA-256 of the content.
func attachments(in []gitstore.AttachmentInput) []gitstore.Attachment {
	var out []gitstore.Attachment
	for _, a := range in {
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(a.Content))
		h.Write(a.Content)
		sum := sha256.Sum256(a.Content)
		out = append(out, gitstore.Attachment{Name: a.Name, OID: hex.EncodeToString(h.Sum(nil)),
			Size: int64(len(a.Content)), SHA256: hex.EncodeToString(sum[:])})
	}
	return out
}

// sameContent compares what two records say, leaving out when and by whom
// they were written.
func sameContent(a, b *gitstore.Event) bool {
	return a.Kind == b.Kind && a.Goal == b.Goal && a.Agent == b.Agent && bytes.Equal(a.Data, b.Data) &&
		slices.EqualFunc(a.Attachments, b.Attachments, func(x, y gitstore.Attachment) bool {
			return x.Name == y.Name && x.SHA256 == y.SHA256
		})
}

// Events yields the selected events (see gitstore.Store).
func (s *Store) Events(q gitstore.Query) iter.Seq2[*gitstore.Event, error] {
	return func(yield func(*gitstore.Event, error) bool) {
		for _, k := range q.Kinds {
			if err := gitstore.ValidateKind(k); err != nil {
				yield(nil, err)
				return
			}
		}
		s.mu.Lock()
		events := slices.Clone(s.events)
		s.mu.Unlock()
		if !q.Reverse {
			slices.Reverse(events)
		}
		n := 0
		for _, e := range events {
			if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, e.Kind) || !strings.HasPrefix(e.ID, q.IDPrefix) {
				continue
			}
			if !yield(clone(e), nil) {
				return
			}
			if n++; q.Limit > 0 && n >= q.Limit {
				return
			}
		}
	}
}

// CheckSeal reports whether e is one of this store's own (see
// gitstore.Store).
func (s *Store) CheckSeal(e *gitstore.Event) error {
	return gitstore.CheckSealWith(s.key, Writer, e)
}

// Get returns the event recorded under id (see gitstore.Store); where it
// is stored is its position, mem:N.
func (s *Store) Get(id string) (*gitstore.Event, string, error) {
	if err := gitstore.ValidateID(id); err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return nil, "", fault.Wrap(fault.Invalid, fmt.Errorf("%w: %s", gitstore.ErrNotFound, id))
	}
	return clone(s.events[i]), fmt.Sprintf("mem:%d", i+1), nil
}

// clone copies an event, so that a reader keeping or changing it cannot
// change what the store holds.
func clone(e *gitstore.Event) *gitstore.Event {
	c := *e
	c.Data = bytes.Clone(e.Data)
	c.Attachments = slices.Clone(e.Attachments)
	return &c
}
