package gitstore

import (
	"bytes"
	"encoding/hex"
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
	// value is what the index stores for the event: the binary commit id
	// followed by the envelope.
	value []byte
	event *Event
	err   error // why the commit is not a valid event
}

func (r *logRecord) envelope() []byte { return r.value[20:] }

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
	args := []string{"log", "-z", "--format=%H %P%n%B", tip}
	if stop != "" {
		args = append(args, "^"+stop)
	}
	var recs []logRecord
	var mem slab
	err := repo.GitRecords(func(chunk []byte) error {
		chunk = bytes.TrimLeft(chunk, "\n")
		if len(chunk) == 0 {
			return nil
		}
		head, msg, _ := bytes.Cut(chunk, []byte{'\n'})
		fields := strings.Fields(string(head))
		if len(fields) == 0 {
			return nil
		}
		r := logRecord{commit: fields[0], parents: fields[1:]}
		env := envelopeOf(msg)
		r.value = mem.alloc(20 + len(env))
		if _, err := hex.Decode(r.value[:20], []byte(r.commit)); err != nil || len(r.commit) != 40 {
			return fmt.Errorf("git log printed %q where a commit id belongs", r.commit)
		}
		copy(r.value[20:], env)
		r.event, r.err = decodeFast(r.envelope())
		recs = append(recs, r)
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	// git log lists newest first; the ledger reads oldest first.
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	prev := stop
	for _, r := range recs {
		want := []string{}
		if prev != "" {
			want = []string{prev}
		}
		if len(r.parents) != len(want) || (len(want) == 1 && r.parents[0] != want[0]) {
			return nil, errNotLinear
		}
		prev = r.commit
	}
	if prev != tip {
		return nil, errNotLinear
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
	if !rebuild {
		for ref, tip := range tips {
			if stored[ref] == "" {
				recs, err := readChain(l.repo, tip, "")
				if err != nil && err != errNotLinear {
					return warn, chainErr(ref, err)
				}
				chains[ref] = recs
			}
		}
	}
	if rebuild {
		if err := resetBuckets(tx); err != nil {
			return warn, err
		}
		chains = map[string][]logRecord{}
		for ref, tip := range tips {
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
	if rebuild || l.keptMoved(stored, tips) {
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

func (l *Ledger) ingest(tx *bolt.Tx, tips map[string]string, chains map[string][]logRecord) ([]string, error) {
	var warnings []string
	meta := tx.Bucket(bucketMeta)
	refs := make([]string, 0, len(chains))
	total := 0
	for ref, recs := range chains {
		refs = append(refs, ref)
		total += len(recs)
	}
	sort.Strings(refs)
	// Sized once: growing these over a whole history touched fresh memory
	// again and again, and page faults are what a cold index paid most for.
	lamports := make([]uint64, 0, total)
	events := make([][2][]byte, 0, total)
	kinds := make([][2][]byte, 0, total)
	idKeys := make(map[string][]byte, total)
	for _, ref := range refs {
		writer := writerOf(ref)
		for _, r := range chains[ref] {
			e, err := r.event, r.err
			if err == nil && e.Writer != writer {
				err = fmt.Errorf("record %s names writer %s but is on %s", e.ID, e.Writer, ref)
			}
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("skipping commit %s on %s: %v", r.commit[:12], ref, err))
				continue
			}
			key := orderKey(e.Lamport, e.Writer, e.ID)
			events = append(events, [2][]byte{key, r.value})
			kinds = append(kinds, [2][]byte{kindKey(e.Kind, key), nil})
			// The id points at the first event in ledger order that used it.
			if prev, ok := idKeys[e.ID]; !ok || bytes.Compare(key, prev) < 0 {
				if !ok {
					if old := tx.Bucket(bucketIDs).Get([]byte(e.ID)); old != nil && bytes.Compare(old, key) < 0 {
						continue
					}
				}
				idKeys[e.ID] = key
			}
			lamports = append(lamports, e.Lamport)
		}
	}
	ids := make([][2][]byte, 0, len(idKeys))
	for id, key := range idKeys {
		ids = append(ids, [2][]byte{[]byte(id), key})
	}
	added, err := putEventsCounting(tx.Bucket(bucketEvents), events)
	if err != nil {
		return nil, err
	}
	if err := putUint(meta, keyCount, getUint(meta, keyCount)+uint64(added)); err != nil {
		return nil, err
	}
	if err := putSorted(tx.Bucket(bucketIDs), ids); err != nil {
		return nil, err
	}
	if err := putSorted(tx.Bucket(bucketKinds), kinds); err != nil {
		return nil, err
	}
	sort.Slice(lamports, func(i, j int) bool { return lamports[i] < lamports[j] })
	max := getUint(meta, keyLamport)
	for _, v := range lamports {
		if v > max && v-max <= lamportJumpCap {
			max = v
		}
	}
	if err := putUint(meta, keyLamport, max); err != nil {
		return nil, err
	}
	tb := tx.Bucket(bucketTips)
	for ref := range storedTips(tx) {
		if _, ok := tips[ref]; !ok {
			tb.Delete([]byte(ref))
		}
	}
	for ref, tip := range tips {
		if err := tb.Put([]byte(ref), []byte(tip)); err != nil {
			return nil, err
		}
	}
	return warnings, nil
}
