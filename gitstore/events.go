package gitstore

import (
	"bytes"
	"errors"
	"iter"
	"slices"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Query selects events for Events.
type Query struct {
	// Kinds keeps only events of these kinds, as their decoded envelopes
	// name them; empty keeps every kind.
	Kinds []string
	// IDPrefix keeps only events whose id starts with it: every record of
	// such an id, as the kind filter finds them, without decoding the rest.
	IDPrefix string
	Limit    int  // 0 = all
	Reverse  bool // oldest first instead of newest first
	// Warnings, when set, collects the warnings the read met.
	Warnings *Warnings
}

// errBreak ends a scan whose reader stopped asking for events.
var errBreak = errors.New("the reader stopped")

// Events yields each selected event, decoded, newest first unless
// q.Reverse, then at most one error. Kinds are matched against the decoded
// envelope, never against its bytes: what an event's data says cannot make
// it read as another kind. The reader may keep the events; breaking out of
// the loop ends the read. The loop must not append: the read holds the
// index open, and an append waits for it to close.
func (l *Ledger) Events(q Query) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		err := l.scan(q, true, func(e *Event, _ []byte) error {
			if !yield(e, nil) {
				return errBreak
			}
			return nil
		})
		if err != nil && err != errBreak {
			yield(nil, err)
		}
	}
}

// Each calls fn with each event Events would yield and returns fn's first
// error, which ends the read: the callback form of Events.
func (l *Ledger) Each(q Query, fn func(e *Event) error) error {
	return l.scan(q, true, func(e *Event, _ []byte) error { return fn(e) })
}

// Envelopes calls fn with the envelope of each selected event exactly as
// stored, selected as Events selects them, for output that shows events
// as they are (ledger log --json). Without a kind to match it skips
// decoding, which is most of what a warm read costs. fn must not keep the
// slice.
func (l *Ledger) Envelopes(q Query, fn func(envelope []byte) error) error {
	return l.scan(q, len(q.Kinds) > 0, func(_ *Event, env []byte) error { return fn(env) })
}

// scan walks the selected events; decode says whether fn needs the event
// decoded (a kind filter always decodes, to check the kind it matched).
func (l *Ledger) scan(q Query, decode bool, fn func(e *Event, env []byte) error) error {
	for _, k := range q.Kinds {
		if err := ValidateKind(k); err != nil {
			return err
		}
	}
	var warn Warnings
	defer func() { q.Warnings.add(warn...) }()
	return l.view(&warn, func(c *call, tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		n := 0
		intern := map[string]string{}
		retracted := retractedSet(tx)
		var buf []byte
		read := 0 // bytes of the index read since the pages were last dropped
		emit := func(key, v []byte) (bool, error) {
			if read += len(key) + len(v); read > dropEvery {
				dropMapped(tx)
				read = 0
			}
			env, oid, ok := readValue(buf[:0], key, v)
			if !ok {
				return false, damaged("entry %x does not read", key)
			}
			buf = env[:0]
			gone := retracted != nil && retracted.Get(oid) != nil
			var e *Event
			if decode {
				var err error
				if e, err = splitIndexed(env, intern); err != nil {
					return false, damaged("entry %x does not decode: %v", key, err)
				}
				if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, e.Kind) {
					return false, nil
				}
				e.Data = append([]byte(nil), e.Data...)
				e.Retracted = gone
			}
			if gone {
				env = markRetracted(env)
			}
			c.delivered, c.inCallback = true, true
			err := fn(e, env)
			c.inCallback = false
			n++
			return q.Limit > 0 && n >= q.Limit, err
		}
		prefix := []byte(q.IDPrefix)
		if len(q.Kinds) == 0 {
			c := events.Cursor()
			first, next := c.Last, c.Prev
			if q.Reverse {
				first, next = c.First, c.Next
			}
			for k, v := first(); k != nil; k, v = next() {
				if !underPrefix(k, prefix) {
					continue
				}
				if stop, err := emit(k, v); stop || err != nil {
					return err
				}
			}
			return nil
		}
		keys := kindOrderKeys(tx, q.Kinds, prefix)
		for i := range keys {
			k := keys[i]
			if !q.Reverse {
				k = keys[len(keys)-1-i]
			}
			v := events.Get(k)
			if v == nil {
				return damaged("the kind index lists event %x, which the index does not hold", k)
			}
			if stop, err := emit(k, v); stop || err != nil {
				return err
			}
		}
		return nil
	})
}

// dropEvery is how many bytes of events a read goes through before it lets
// go of the index pages it mapped (dropMapped): nothing it hands on points
// into them.
const dropEvery = 32 << 20

// markRetracted adds "retracted": true to an envelope for output. An
// envelope never holds the field itself (decoding refuses unknown fields),
// so a writer cannot mark its events so.
func markRetracted(env []byte) []byte {
	if len(env) < 2 || env[len(env)-1] != '}' {
		return env
	}
	out := make([]byte, 0, len(env)+18)
	out = append(out, env[:len(env)-1]...)
	return append(out, `,"retracted":true}`...)
}

// kindOrderKeys returns the order keys of every event of the given kinds
// whose id starts with prefix, oldest first. Only keys are read: an event
// left out costs no decoding and no seal check.
func kindOrderKeys(tx *bolt.Tx, kinds []string, prefix []byte) [][]byte {
	var keys [][]byte
	seen := map[string]bool{}
	for _, kind := range kinds {
		if seen[kind] {
			continue
		}
		seen[kind] = true
		b := tx.Bucket(bucketKinds).Bucket([]byte(kind))
		if b == nil {
			continue
		}
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if underPrefix(k, prefix) {
				keys = append(keys, append([]byte(nil), k...))
			}
		}
	}
	if len(seen) > 1 {
		sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
	}
	return keys
}

// underPrefix says whether the record id an order key ends with (index.go:
// the clock's length, the clock, the writer, a NUL, the id) starts with
// prefix. Every record of an id is found this way, whoever wrote it; the
// id index keeps one per id.
func underPrefix(key, prefix []byte) bool {
	if len(prefix) == 0 {
		return true
	}
	if len(key) == 0 || 1+int(key[0]) > len(key) {
		return false
	}
	rest := key[1+int(key[0]):]
	nul := bytes.IndexByte(rest, 0)
	return nul >= 0 && bytes.HasPrefix(rest[nul+1:], prefix)
}
