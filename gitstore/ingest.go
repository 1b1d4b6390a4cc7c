package gitstore

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// lamportJumpCap bounds how far one event may push the clock ahead of what
// was seen before it; a larger jump from a peer is recorded but not trusted
// to advance our clock, so one bad writer cannot exhaust the counter.
const lamportJumpCap = 1_000_000

// logRecord is one commit read back from git, with its envelope decoded.
type logRecord struct {
	commit  string
	parents []string
	// key and value are what the index stores for a valid event: its
	// order key, and the binary commit id followed by the packed envelope.
	key, value []byte
	event      *Event
	err        error // why the commit is not a valid event
}

// slab hands out byte slices carved from large blocks: a cold index keeps
// every envelope of the history until its one commit, and allocating them
// one by one cost more than reading them.
type slab struct{ block []byte }

const slabBlock = 1 << 20

func (s *slab) alloc(n int) []byte {
	if n > slabBlock/4 {
		return make([]byte, n)
	}
	if cap(s.block)-len(s.block) < n {
		s.block = make([]byte, 0, slabBlock)
	}
	b := s.block[len(s.block) : len(s.block)+n : len(s.block)+n]
	s.block = s.block[:len(s.block)+n]
	return b
}

// readChain returns the commits reachable from tip but not from stop
// (stop "" = all), oldest first, and checks that they form one linear chain
// ending on stop. Envelopes are decoded while git is still writing.
func readChain(repo *gitrepo.Repo, tip, stop string) ([]logRecord, error) {
	var recs []logRecord
	err := streamChain(repo, tip, stop, 0, func(batch []logRecord) error {
		recs = batch
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

var errNotLinear = fmt.Errorf("ledger ref is not a linear extension of what was indexed")

// envelopeOf returns the JSON envelope of an event commit message: the text
// after the one-line summary and the blank line.
func envelopeOf(msg []byte) []byte {
	_, body, ok := bytes.Cut(msg, []byte("\n\n"))
	if !ok {
		return nil
	}
	return bytes.TrimSpace(body)
}

// refresh brings the index up to date with the writer refs. Refs that only
// moved forward are ingested incrementally; anything else (a ref deleted or
// rewritten behind our back, another index version) rebuilds from scratch,
// after keeping what the index had read of the lost ref (keep.go). It
// returns one warning per commit that is not a valid event.
func (l *Ledger) refresh(tx *bolt.Tx, tips map[string]string) ([]string, error) {
	if err := ensureBuckets(tx); err != nil {
		return nil, err
	}
	stored := storedTips(tx)
	if sameTips(stored, tips) {
		return nil, nil
	}
	var warn Warnings
	var lost []string
	for ref := range stored {
		if _, ok := tips[ref]; !ok {
			lost = append(lost, ref)
		}
	}
	rebuild := len(lost) > 0
	chains := map[string][]logRecord{}
	for ref, tip := range tips {
		old := stored[ref]
		if old == tip || old == "" {
			continue
		}
		if rebuild {
			if !isAncestor(l.repo, old, tip) {
				lost = append(lost, ref)
			}
			continue
		}
		recs, err := readChain(l.repo, tip, old)
		if err == errNotLinear {
			rebuild = true
			lost = append(lost, ref)
			continue
		}
		if err != nil {
			return nil, chainErr(ref, err)
		}
		chains[ref] = recs
	}
	if err := l.keepLost(stored, tips, lost, &warn); err != nil {
		return warn, err
	}
	if rebuild || len(stored) == 0 {
		// A whole history is read in batches, each in a transaction of
		// its own, so memory stays flat in its length (rebuild.go).
		return warn, errRebuild
	}
	for ref, tip := range tips {
		if stored[ref] == "" {
			recs, err := readChain(l.repo, tip, "")
			if err != nil && err != errNotLinear {
				return warn, chainErr(ref, err)
			}
			chains[ref] = recs
		}
	}
	w, err := l.ingest(tx, tips, chains)
	warn = append(warn, w...)
	if err != nil {
		return warn, err
	}
	if l.keptMoved(stored, tips) {
		err = l.markRetracted(tx, tips)
	}
	return warn, err
}

// keptMoved reports whether a quarantined tip, or the writer ref of a
// writer that has one, differs from what the index last read.
func (l *Ledger) keptMoved(stored, tips map[string]string) bool {
	kept := l.keptByWriter(tips)
	for ref, tip := range tips {
		if stored[ref] == tip {
			continue
		}
		if strings.HasPrefix(ref, QuarantinePrefix) || len(kept[writerOf(ref)]) > 0 {
			return true
		}
	}
	for ref := range stored {
		if _, ok := tips[ref]; !ok && strings.HasPrefix(ref, QuarantinePrefix) {
			return true
		}
	}
	return false
}

// ingest adds the chains read of each ref and then records the tips.
func (l *Ledger) ingest(tx *bolt.Tx, tips map[string]string, chains map[string][]logRecord) ([]string, error) {
	refs := make([]string, 0, len(chains))
	for ref := range chains {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	var warnings []string
	var lamports []uint64
	for _, ref := range refs {
		w, err := ingestRecords(tx, ref, chains[ref], &lamports, nil)
		warnings = append(warnings, w...)
		if err != nil {
			return warnings, err
		}
	}
	return warnings, finishIngest(tx, tips, lamports)
}

// ingestRecords adds the events of recs, read from ref, and appends their
// clocks to lamports. It returns one warning per commit that is not a
// valid event. With a spool, the ids go there, for the caller to write.
func ingestRecords(tx *bolt.Tx, ref string, recs []logRecord, lamports *[]uint64, spool *idSpool) ([]string, error) {
	var warnings []string
	// Sized once: growing these over a whole history touched fresh memory
	// again and again, and page faults are what a cold index paid most for.
	events := make([][2][]byte, 0, len(recs))
	kinds := map[string][][2][]byte{}
	idKeys := map[string][]byte{}
	var mem slab
	writer := writerOf(ref)
	for _, r := range recs {
		e, err := r.event, r.err
		if err == nil && e.Writer != writer {
			err = fmt.Errorf("record %s names writer %s but is on %s", e.ID, e.Writer, ref)
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("skipping commit %s on %s: %v", r.commit[:12], ref, err))
			continue
		}
		key := r.key
		events = append(events, [2][]byte{key, r.value})
		kinds[e.Kind] = append(kinds[e.Kind], [2][]byte{key, nil})
		if spool != nil && spool.add(e.ID, e.Lamport, e.Writer) {
			*lamports = append(*lamports, e.Lamport)
			continue
		}
		// The id points at the first event in ledger order that used it.
		ref := idRef(key, e.ID)
		if prev, ok := idKeys[e.ID]; !ok || bytes.Compare(ref, prev) < 0 {
			if !ok {
				if old := tx.Bucket(bucketIDs).Get([]byte(e.ID)); old != nil && bytes.Compare(old, ref) < 0 {
					continue
				}
			}
			idKeys[e.ID] = ref
		}
		*lamports = append(*lamports, e.Lamport)
	}
	ids := make([][2][]byte, 0, len(idKeys))
	for id, ref := range idKeys {
		ids = append(ids, [2][]byte{append(mem.alloc(len(id))[:0], id...), ref})
	}
	added, err := putEventsCounting(tx.Bucket(bucketEvents), events)
	if err != nil {
		return warnings, err
	}
	meta := tx.Bucket(bucketMeta)
	if err := putUint(meta, keyCount, getUint(meta, keyCount)+uint64(added)); err != nil {
		return warnings, err
	}
	// Ids come in any order: pages a little short of full take the next
	// batch's without splitting at once.
	if err := putSorted(tx.Bucket(bucketIDs), ids, 0.95); err != nil {
		return warnings, err
	}
	for kind, keys := range kinds {
		kb, err := kindBucket(tx, kind)
		if err != nil {
			return warnings, err
		}
		if err := putSorted(kb, keys, 1); err != nil {
			return warnings, err
		}
	}
	return warnings, nil
}

// finishIngest advances the clock over the events ingested (one bad
// writer's jump is not trusted) and records the tips they were read at.
func finishIngest(tx *bolt.Tx, tips map[string]string, lamports []uint64) error {
	meta := tx.Bucket(bucketMeta)
	sort.Slice(lamports, func(i, j int) bool { return lamports[i] < lamports[j] })
	max := getUint(meta, keyLamport)
	for _, v := range lamports {
		if v > max && v-max <= lamportJumpCap {
			max = v
		}
	}
	if err := putUint(meta, keyLamport, max); err != nil {
		return err
	}
	tb := tx.Bucket(bucketTips)
	for ref := range storedTips(tx) {
		if _, ok := tips[ref]; !ok {
			tb.Delete([]byte(ref))
		}
	}
	for ref, tip := range tips {
		if err := tb.Put([]byte(ref), []byte(tip)); err != nil {
			return err
		}
	}
	return nil
}
