package gitstore

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// errRebuild says refresh found the index must be built again from git:
// a cold index, another layout, or a ref that no longer extends what was
// indexed. The caller runs rebuild and then its transaction again.
var errRebuild = errors.New("the ledger index must be rebuilt")

// rebuildBatch is how many commits one transaction of a rebuild ingests:
// what a rebuild holds at once, whatever the history's length. Three
// batches are alive at a time (streamChain).
const rebuildBatch = 10_000

// streamChain reads the commits reachable from tip but not from stop
// (stop "" = all), oldest first, and hands them to fn in batches of at most
// batch (0: all at once). It checks as it goes that they form one linear
// chain from stop to tip, and returns errNotLinear when they do not (after
// the batches it could read).
//
// With batches, git is read on another goroutine while fn ingests the
// batch before: git would otherwise wait on a full pipe while the index
// is written. fn runs on the caller's goroutine, where guard catches what
// a damaged index raises.
func streamChain(repo *gitrepo.Repo, tip, stop string, batch int, fn func([]logRecord) error) error {
	if batch == 0 {
		return readLog(repo, tip, stop, 0, fn)
	}
	batches := make(chan []logRecord, 1)
	stopped := make(chan struct{})
	var readErr error
	go func() {
		defer close(batches)
		readErr = readLog(repo, tip, stop, batch, func(recs []logRecord) error {
			select {
			case batches <- recs:
				return nil
			case <-stopped:
				return errBreak
			}
		})
	}()
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stopped) }) }
	defer func() {
		// On an error or a panic, git is stopped and the reader drained.
		halt()
		for range batches {
		}
	}()
	for recs := range batches {
		if err := fn(recs); err != nil {
			return err
		}
	}
	return readErr
}

// readLog is streamChain on one goroutine: fn is called between reads.
func readLog(repo *gitrepo.Repo, tip, stop string, batch int, fn func([]logRecord) error) error {
	// git maps the pack in windows it keeps (1 GB each, up to 8 GB): over
	// a large ledger that made git log the largest part of a cold read's
	// memory. Small windows cost it nothing measurable.
	args := []string{"-c", "core.packedGitWindowSize=4m", "-c", "core.packedGitLimit=32m",
		"log", "--reverse", "-z", "--format=%H %P%n%B", tip}
	if stop != "" {
		args = append(args, "^"+stop)
	}
	var (
		recs   []logRecord
		mem    slab
		prev   = stop
		linear = true
	)
	flush := func() error {
		if len(recs) == 0 {
			return nil
		}
		err := fn(recs)
		if batch > 0 {
			recs, mem = make([]logRecord, 0, batch), slab{}
		}
		return err
	}
	add := func(r logRecord) error {
		recs = append(recs, r)
		if batch > 0 && len(recs) >= batch {
			return flush()
		}
		return nil
	}
	var packed, scratch []byte
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
		if prev == "" {
			linear = linear && len(r.parents) == 0
		} else {
			linear = linear && len(r.parents) == 1 && r.parents[0] == prev
		}
		prev = r.commit
		var oid [20]byte
		if _, err := hex.Decode(oid[:], []byte(r.commit)); err != nil || len(r.commit) != 40 {
			return fmt.Errorf("git log printed %q where a commit id belongs", r.commit)
		}
		env := envelopeOf(msg)
		r.event, r.err = decodeFast(env)
		if r.err != nil {
			return add(r) // skipped with a warning: nothing to store
		}
		e := r.event
		key := appendOrderKey(mem.alloc(9 + len(e.Writer) + len(e.ID))[:0], e.Lamport, e.Writer, e.ID)
		packed, scratch = appendValue(packed[:0], scratch, key, &oid, env, e)
		r.key = key
		r.value = append(mem.alloc(len(packed))[:0], packed...)
		// env is git's buffer, soon reused: the event must not point into it.
		if r.value[valueHead] == formPacked {
			e.Data = r.value[len(r.value)-len(e.Data):] // data ends the packed form
		} else {
			r.event, r.err = decodeFast(r.value[valueHead+1:])
		}
		return add(r)
	}, args...)
	if err != nil {
		return err
	}
	if !linear || prev != tip {
		return errNotLinear
	}
	return flush()
}

// rebuild builds the index again from git in batches, each batch a
// transaction of its own, so memory stays flat in the history's length.
// The tips are recorded last: a rebuild cut short leaves an index that
// the next command rebuilds. No other process can open the index
// meanwhile: this one holds its file lock.
func (l *Ledger) rebuild(db *bolt.DB, warn *Warnings) error {
	tips, err := l.tips(nil)
	if err != nil {
		return err
	}
	if err := db.Update(resetBuckets); err != nil {
		return err
	}
	refs := make([]string, 0, len(tips))
	for r := range tips {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	var lamports []uint64
	var spool idSpool
	for _, ref := range refs {
		ingest := func(recs []logRecord) error {
			return db.Update(func(tx *bolt.Tx) error {
				w, err := ingestRecords(tx, ref, recs, &lamports, &spool)
				warn.add(w...)
				return err
			})
		}
		// Oldest piece first; each git log lists what its start reaches
		// and the piece before it does not, so together they list it all.
		bounds := append(pieceBounds(l.repo, tips[ref], pieceSize), "")
		for i := len(bounds) - 2; i >= 0; i-- {
			err := streamChain(l.repo, bounds[i], bounds[i+1], rebuildBatch, ingest)
			// A ref that is not one chain is read as far as git lists it;
			// ledger verify names its merge commits.
			if err != nil && err != errNotLinear {
				return chainErr(ref, err)
			}
		}
	}
	if err := spool.write(db, 4*rebuildBatch); err != nil {
		return err
	}
	return db.Update(func(tx *bolt.Tx) error {
		if err := finishIngest(tx, tips, lamports); err != nil {
			return err
		}
		return l.markRetracted(tx, tips)
	})
}

// pieceSize is how many commits one git log of a rebuild lists at most: git
// keeps every commit it walked, 270 MB for a million with --reverse.
const pieceSize = 250_000

// pieceBounds returns tip and the commits n, 2n... first parents behind it.
// The tip's clock bounds how long its history can be (each event's is above
// its parent's), so a shorter one costs no walk.
func pieceBounds(repo *gitrepo.Repo, tip string, n int) []string {
	bounds := []string{tip}
	if e, err := tipEvent(repo, tip); err != nil || e.Lamport < uint64(n) {
		return bounds
	}
	for {
		out, err := repo.Git("rev-parse", "--verify", "-q", fmt.Sprintf("%s~%d", bounds[len(bounds)-1], n))
		if err != nil {
			return bounds // fewer commits are left
		}
		bounds = append(bounds, strings.TrimSpace(string(out)))
	}
}

func tipEvent(repo *gitrepo.Repo, tip string) (*Event, error) {
	raw, err := repo.Git("cat-file", "commit", tip)
	if err != nil {
		return nil, err
	}
	_, msg, _ := bytes.Cut(raw, []byte("\n\n"))
	return decodeFast(envelopeOf(msg))
}

// refreshed runs fn in a read-write transaction on an index current with
// the refs, rebuilding it first when refresh asks for that.
func (l *Ledger) refreshed(db *bolt.DB, warn *Warnings, fn func(tx *bolt.Tx, tips map[string]string) error) error {
	for attempt := 0; ; attempt++ {
		err := db.Update(func(tx *bolt.Tx) error {
			tips, err := l.tips(nil)
			if err != nil {
				return err
			}
			w, err := l.refresh(tx, tips)
			warn.add(w...)
			if err != nil {
				return err
			}
			return fn(tx, tips)
		})
		if err != errRebuild || attempt > 0 {
			return err
		}
		if err := l.rebuild(db, warn); err != nil {
			return err
		}
	}
}
