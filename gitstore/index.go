package gitstore

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// indexVersion changes whenever the index layout does; an index of another
// version is rebuilt from git.
const indexVersion = "9"

// indexLockWait bounds how long a command waits for another agentproto
// process that holds the index.
const indexLockWait = 60 * time.Second

var (
	bucketMeta   = []byte("meta")
	bucketTips   = []byte("tips")
	bucketEvents = []byte("events") // order key -> commit oid, checksum, envelope (packed.go)
	bucketIDs    = []byte("ids")    // record id -> its order key without the id (idRef)
	bucketKinds  = []byte("kinds")  // kind -> bucket of order key -> nothing
	keyVersion   = []byte("version")
	keyLamport   = []byte("lamport")
	keyLoose     = []byte("loose")
	keyCount     = []byte("count") // events in the bucket, so Count never walks it
)

// index is a cache of the ledger, keyed by the tip of each writer ref. It is
// never the source of truth: deleting it only costs a rebuild.
type index struct {
	db *bolt.DB
}

func indexPath(common string) string { return filepath.Join(stateDir(common), "index.db") }

// indexMode keeps the index to its owner: it holds every event's text.
const indexMode = 0o600

func openIndex(common string, readOnly bool) (*index, error) {
	return openIndexFile(indexPath(common), readOnly)
}

// openIndexFile opens the index at path. What it checks is the file it
// opened, never the path again: a reindex may put a new file there at any
// moment.
func openIndexFile(path string, readOnly bool) (*index, error) {
	if readOnly {
		// An empty file is an index not yet made (bbolt cannot open it
		// read-only); the read-write open makes it.
		if fi, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Size() == 0) {
			return nil, fs.ErrNotExist
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	var file *os.File
	db, err := bolt.Open(path, indexMode, &bolt.Options{
		OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, mode)
			if err != nil {
				return nil, err
			}
			// Locked here, without bbolt's 50 ms steps (indexlock.go).
			if err := lockIndexFile(f, readOnly, indexLockWait); err != nil {
				f.Close()
				return nil, err
			}
			file = f
			return f, nil
		},
		Timeout:  indexLockWait,
		ReadOnly: readOnly,
		// The freelist is written with each commit (a page or two): without
		// it, every read-write open scanned the whole file to rebuild it,
		// ~10 ms per append on a 20,000-event ledger and growing with it.
		NoFreelistSync: false,
		// The index is a cache that git can always rebuild; syncing it to
		// disk on every commit would cost more than the append it indexes.
		NoSync: true,
		// Nor on every growth of the file, which bbolt otherwise also
		// extends 16 MB ahead of what it holds: written pages extend it.
		NoGrowSync:   true,
		FreelistType: bolt.FreelistMapType,
		// Reserve address space up front: growing the map remaps it and
		// copies every live node, which dominated index builds.
		InitialMmapSize: 1 << 30,
	})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("the ledger index %s is held by another agentproto process", path)
	}
	if err != nil && isBoltDamage(err) {
		return nil, damaged("%v", err)
	}
	if err != nil {
		return nil, fmt.Errorf("opening ledger index %s: %w", path, err)
	}
	ix := &index{db: db}
	if err := ix.check(file); err != nil {
		db.Close()
		return nil, err
	}
	return ix, nil
}

// check catches a truncated index before anything reads it: pages past the
// end of the file fault when read through the map. It also takes back an
// index made world-readable by an older version.
func (ix *index) check(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Mode().Perm() != indexMode {
		f.Chmod(indexMode)
	}
	return ix.db.View(func(tx *bolt.Tx) error {
		if tx.Size() > fi.Size() {
			return damaged("the file is %d bytes long but its pages reach %d", fi.Size(), tx.Size())
		}
		return nil
	})
}

func (ix *index) close() error { return ix.db.Close() }

// orderKey sorts events by (lamport, writer, id): the ledger's total order.
func orderKey(lamport uint64, writer, id string) []byte {
	return appendOrderKey(make([]byte, 0, 9+len(writer)+1+len(id)), lamport, writer, id)
}

// The clock is written in as few bytes as it needs, after their count:
// keys still sort by it, and a clock of millions takes 4 bytes, not 8.
func appendOrderKey(dst []byte, lamport uint64, writer, id string) []byte {
	n := (bits.Len64(lamport) + 7) / 8
	dst = append(dst, byte(n))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(lamport>>(8*i)))
	}
	dst = append(dst, writer...)
	dst = append(dst, 0)
	return append(dst, id...)
}

// kindBucket is the bucket of the kind's events under kinds, made on
// first use. A bucket per kind keeps the kind out of every key.
func kindBucket(tx *bolt.Tx, kind string) (*bolt.Bucket, error) {
	return tx.Bucket(bucketKinds).CreateBucketIfNotExists([]byte(kind))
}

// idRef is what the ids bucket keeps for the event under key: the key
// without the id, which is the bucket's own key. Two refs of one id
// compare as their order keys do.
func idRef(key []byte, id string) []byte { return key[:len(key)-len(id)] }

// ensureBuckets creates the buckets, resetting everything when the stored
// layout version differs.
func ensureBuckets(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta != nil && string(meta.Get(keyVersion)) == indexVersion {
		return nil
	}
	return resetBuckets(tx)
}

func resetBuckets(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketMeta, bucketTips, bucketEvents, bucketIDs, bucketKinds, bucketRetracted} {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketMeta).Put(keyVersion, []byte(indexVersion))
}

func getUint(b *bolt.Bucket, key []byte) uint64 {
	v := b.Get(key)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func putUint(b *bolt.Bucket, key []byte, v uint64) error {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], v)
	return b.Put(key, buf[:])
}

// storedTips returns ref -> tip as the index last saw them.
func storedTips(tx *bolt.Tx) map[string]string {
	out := map[string]string{}
	b := tx.Bucket(bucketTips)
	if b == nil {
		return out
	}
	b.ForEach(func(k, v []byte) error {
		out[string(k)] = string(v)
		return nil
	})
	return out
}

func sameTips(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// indexed is one event as the index holds it.
type indexed struct {
	commit   string
	envelope []byte
}

// decodeIndexed reads the value stored under key; the envelope is a copy.
func decodeIndexed(key, v []byte) (indexed, error) {
	env, oid, ok := readValue(nil, key, v)
	if !ok {
		return indexed{}, damaged("entry %x does not read", key)
	}
	return indexed{commit: hex.EncodeToString(oid), envelope: env}, nil
}

// putSorted stores pairs in key order, the cheap way for bbolt, filling
// pages to fill: keys that land at the right edge (or at the end of one
// kind's range) never split or shift a node, and fill them whole.
func putSorted(b *bolt.Bucket, pairs [][2][]byte, fill float64) error {
	sort.Slice(pairs, func(i, j int) bool { return bytes.Compare(pairs[i][0], pairs[j][0]) < 0 })
	b.FillPercent = fill
	for _, p := range pairs {
		if err := b.Put(p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

// putEventsCounting is putSorted for the events bucket, returning how many
// keys were not there before. One event can come from two refs (a writer
// ref and a quarantined tip of it): once sorted, those are neighbours; a
// bucket that held keys before is asked about each.
func putEventsCounting(b *bolt.Bucket, pairs [][2][]byte) (int, error) {
	sort.Slice(pairs, func(i, j int) bool { return bytes.Compare(pairs[i][0], pairs[j][0]) < 0 })
	// Keys past the bucket's last one are new without asking: a writer's
	// next events, and every batch of a rebuild of one ref.
	var last []byte
	if k, _ := b.Cursor().Last(); k != nil {
		last = append(last, k...)
	}
	b.FillPercent = 1
	added := 0
	for i, p := range pairs {
		if i > 0 && bytes.Equal(pairs[i-1][0], p[0]) {
			continue
		}
		if last == nil || bytes.Compare(p[0], last) > 0 || b.Get(p[0]) == nil {
			added++
		}
		if err := b.Put(p[0], p[1]); err != nil {
			return added, err
		}
	}
	return added, nil
}

// putEvent stores an event. When two writers used one record id, the id
// points at the event first in ledger order; `ledger verify` reports the pair.
func putEvent(tx *bolt.Tx, e *Event, commit [20]byte, envelope []byte) error {
	key := orderKey(e.Lamport, e.Writer, e.ID)
	val, _ := appendValue(make([]byte, 0, valueHead+1+len(envelope)), nil, key, &commit, envelope, e)
	events := tx.Bucket(bucketEvents)
	if events.Get(key) == nil {
		meta := tx.Bucket(bucketMeta)
		if err := putUint(meta, keyCount, getUint(meta, keyCount)+1); err != nil {
			return err
		}
	}
	if err := events.Put(key, val); err != nil {
		return err
	}
	kb, err := kindBucket(tx, e.Kind)
	if err != nil {
		return err
	}
	if err := kb.Put(key, nil); err != nil {
		return err
	}
	ids := tx.Bucket(bucketIDs)
	ref := idRef(key, e.ID)
	if prev := ids.Get([]byte(e.ID)); prev != nil && bytes.Compare(prev, ref) < 0 {
		return nil
	}
	return ids.Put([]byte(e.ID), ref)
}

// lookupID returns the event recorded under id, or ok=false.
func lookupID(tx *bolt.Tx, id string) (indexed, bool, error) {
	ref := tx.Bucket(bucketIDs).Get([]byte(id))
	if ref == nil {
		return indexed{}, false, nil
	}
	key := append(append(make([]byte, 0, len(ref)+len(id)), ref...), id...)
	v := tx.Bucket(bucketEvents).Get(key)
	if v == nil {
		return indexed{}, false, nil
	}
	got, err := decodeIndexed(key, v)
	return got, err == nil, err
}

// Count returns the number of events in the ledger and the warnings met.
func (l *Ledger) Count() (int, Warnings, error) {
	n := 0
	var warn Warnings
	err := l.view(&warn, func(_ *call, tx *bolt.Tx) error {
		n = int(getUint(tx.Bucket(bucketMeta), keyCount))
		return nil
	})
	return n, warn, err
}
