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

// logRecord is one commit read back from git.
type logRecord struct {
	commit  string
	parents []string
	message []byte
}

// readChain returns the commits reachable from tip but not from stop
// (stop "" = all), oldest first, and checks that they form one linear chain
// ending on stop.
func readChain(repo *gitrepo.Repo, tip, stop string) ([]logRecord, error) {
	args := []string{"log", "-z", "--format=%H %P%n%B", tip}
	if stop != "" {
		args = append(args, "^"+stop)
	}
	out, err := repo.Git(args...)
	if err != nil {
		return nil, err
	}
	var recs []logRecord
	for _, chunk := range bytes.Split(out, []byte{0}) {
		chunk = bytes.TrimLeft(chunk, "\n")
		if len(chunk) == 0 {
			continue
		}
		head, msg, _ := bytes.Cut(chunk, []byte{'\n'})
		fields := strings.Fields(string(head))
		if len(fields) == 0 {
			continue
		}
		recs = append(recs, logRecord{commit: fields[0], parents: fields[1:], message: msg})
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
	if len(recs) > 0 && prev != tip {
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
// rewritten behind our back, another index version) rebuilds from scratch.
// It returns one warning per commit that is not a valid event.
func (l *Ledger) refresh(tx *bolt.Tx, tips map[string]string) ([]string, error) {
	if err := ensureBuckets(tx); err != nil {
		return nil, err
	}
	stored := storedTips(tx)
	if sameTips(stored, tips) {
		return nil, nil
	}
	rebuild := false
	for ref := range stored {
		if _, ok := tips[ref]; !ok {
			rebuild = true
		}
	}
	chains := map[string][]logRecord{}
	if !rebuild {
		for ref, tip := range tips {
			if stored[ref] == tip {
				continue
			}
			recs, err := readChain(l.repo, tip, stored[ref])
			if err == errNotLinear {
				rebuild = true
				break
			}
			if err != nil {
				return nil, err
			}
			chains[ref] = recs
		}
	}
	if rebuild {
		if err := resetBuckets(tx); err != nil {
			return nil, err
		}
		chains = map[string][]logRecord{}
		for ref, tip := range tips {
			recs, err := readChain(l.repo, tip, "")
			if err != nil && err != errNotLinear {
				return nil, err
			}
			chains[ref] = recs
		}
	}
	return l.ingest(tx, tips, chains)
}

func (l *Ledger) ingest(tx *bolt.Tx, tips map[string]string, chains map[string][]logRecord) ([]string, error) {
	var warnings []string
	meta := tx.Bucket(bucketMeta)
	var lamports []uint64
	refs := make([]string, 0, len(chains))
	for ref := range chains {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	for _, ref := range refs {
		writer := strings.TrimPrefix(ref, LedgerRefPrefix)
		for _, r := range chains[ref] {
			env := envelopeOf(r.message)
			e, err := decodeEnvelope(env)
			if err == nil && e.Writer != writer {
				err = fmt.Errorf("record %s names writer %s but is on %s", e.ID, e.Writer, ref)
			}
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("skipping commit %s on %s: %v", r.commit[:12], ref, err))
				continue
			}
			var oid [20]byte
			hex.Decode(oid[:], []byte(r.commit))
			if err := putEvent(tx, e, oid, env); err != nil {
				return nil, err
			}
			lamports = append(lamports, e.Lamport)
		}
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
