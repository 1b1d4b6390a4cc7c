package gitstore

import (
	"fmt"
	"iter"
)

// Store is what features need of a ledger: to append events, to read them
// back typed, and to look one up. The git ledger (Ledger) is one; an
// in-memory fake (gitstore/memstore) is another. gitstore/storetest holds
// the contract both pass.
type Store interface {
	// Append records drafts of feature kinds, all or nothing. It checks
	// them as Validate does with user=false. A record id already held with
	// the same content is reported in Existing and written again never;
	// with other content the whole batch fails as a Conflict.
	Append(drafts []Draft) (*AppendResult, error)
	// Events yields the selected events, newest first unless q.Reverse,
	// and at most one error, after which it stops. Breaking out of the
	// loop stops the read. Kinds are the decoded envelope's.
	Events(q Query) iter.Seq2[*Event, error]
	// Get returns the event recorded under id and where it is stored (the
	// commit, for the git ledger). It returns an error wrapping
	// ErrNotFound when there is none.
	Get(id string) (*Event, string, error)
	// CheckSeal reports whether e, read from this store, is one the store
	// itself wrote: nil when it is or when e's kind is not sealed
	// (Sealed), else a *SealError saying why not (another writer's, no
	// seal, a seal that does not match). Only other errors are failures
	// to check.
	CheckSeal(e *Event) error
}

var _ Store = (*Ledger)(nil)

// Warnings are problems a call met that lost nothing, in the order met:
// commits on a peer's ref that are not events, an index rebuilt from git.
// Calls return them; commands print them on stderr.
type Warnings []string

func (w *Warnings) add(s ...string) {
	if w != nil {
		*w = append(*w, s...)
	}
}

// Validate checks drafts as every Store does before it writes anything,
// and puts their data in canonical form. user says whether the batch comes
// from the user path (ledger append): it then holds only user kinds, and
// otherwise none; a declared kind is taken only from a draft its Owner
// made. A draft holding a secret is refused, naming the field.
func Validate(drafts []Draft, user bool) error {
	for i := range drafts {
		err := drafts[i].normalize()
		if err == nil {
			err = checkOwner(&drafts[i], user)
		}
		if err == nil {
			err = refuseSecrets(&drafts[i])
		}
		if err != nil {
			if len(drafts) > 1 {
				return fmt.Errorf("event %d of the batch: %w", i+1, err)
			}
			return err
		}
	}
	return nil
}
