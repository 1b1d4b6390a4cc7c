package gitstore

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/agentproto/agentproto/internal/gitref"
)

// The rule of what a clone has seen: an event this clone once read is never
// dropped from its reads. When a writer ref stops holding events the index
// had read from it (its writer rewound or rewrote it, it was deleted, or its
// file broke), the last tip read is kept under QuarantinePrefix, and the
// quarantined refs are read like writer refs. Events they hold that their
// writer's current ref does not are shown as retracted by their writer.

// bucketRetracted holds the commit ids (20 bytes) of events a writer's
// current ref no longer holds.
var bucketRetracted = []byte("retracted")

// tips returns the refs the ledger reads: every writer ref and every
// quarantined tip. Another writer's ref that cannot be read is left out,
// with a warning; its events stay readable through the tip the index kept.
// This clone's own ref must be readable: nothing may be built on a tip
// that is not known.
func (l *Ledger) tips(warn *Warnings) (map[string]string, error) {
	live, broken, err := l.refs.ListAll(LedgerRefPrefix)
	if err != nil {
		return nil, err
	}
	if len(broken) > 0 {
		own, err := ReadWriterID(l.repo.CommonDir)
		if err != nil {
			return nil, err
		}
		for _, b := range broken {
			if own != "" && b.Name == LedgerRefPrefix+own {
				return nil, b
			}
			warn.add(fmt.Sprintf("ref %s cannot be read (%s); reading the events this clone had from it; `git agentproto sync` restores it from the remote", b.Name, b.Path))
		}
	}
	kept, keptBroken, err := l.refs.ListAll(QuarantinePrefix)
	if err != nil {
		return nil, err
	}
	for _, b := range keptBroken {
		warn.add(b.Error())
	}
	for r, t := range kept {
		live[r] = t
	}
	return live, nil
}

// writerOf names the writer whose events ref holds: a writer ref, or a
// quarantined tip of one (QuarantinePrefix + writer + "/" + stamp).
func writerOf(ref string) string {
	if w, ok := strings.CutPrefix(ref, LedgerRefPrefix); ok {
		return w
	}
	w, _, _ := strings.Cut(strings.TrimPrefix(ref, QuarantinePrefix), "/")
	return w
}

// keepLost keeps, under a quarantine ref, the last tip the index read of
// each other writer's ref in lost (gone, broken, or no longer a
// fast-forward of it), unless a quarantined tip already holds it, and adds
// the kept refs to tips. This clone's own ref is left to its user: only
// they move it back.
func (l *Ledger) keepLost(stored, tips map[string]string, lost []string, warn *Warnings) error {
	if len(lost) == 0 {
		return nil
	}
	own, err := ReadWriterID(l.repo.CommonDir)
	if err != nil {
		return err
	}
	sort.Strings(lost)
	for _, ref := range lost {
		old := stored[ref]
		if !strings.HasPrefix(ref, LedgerRefPrefix) || ref == LedgerRefPrefix+own || old == "" || l.alreadyKept(ref, old, tips) {
			continue
		}
		if !l.repo.HasCommit(old) {
			warn.add(fmt.Sprintf("%s no longer holds commit %s, which this clone had read, and git no longer has it: its events cannot be kept", ref, old[:12]))
			continue
		}
		name, err := l.keep(ref, old)
		if err != nil {
			return err
		}
		tips[name] = old
		now := "is gone"
		if tips[ref] != "" {
			now = "was rewritten"
		}
		warn.add(fmt.Sprintf("%s %s; the events this clone had read from it stay readable under %s (see git agentproto ledger verify)", ref, now, name))
	}
	return nil
}

// alreadyKept reports whether a quarantined tip of ref's writer holds tip.
func (l *Ledger) alreadyKept(ref, tip string, tips map[string]string) bool {
	prefix := QuarantinePrefix + writerOf(ref) + "/"
	for r, t := range tips {
		if strings.HasPrefix(r, prefix) && (t == tip || isAncestor(l.repo, tip, t)) {
			return true
		}
	}
	return false
}

// markRetracted records which events of quarantined tips their writer's
// current ref no longer holds. It runs when a writer ref or a quarantined
// tip moved; a writer whose ref cannot be read has nothing marked, since
// what it holds is not known.
func (l *Ledger) markRetracted(tx *bolt.Tx, tips map[string]string) error {
	if err := tx.DeleteBucket(bucketRetracted); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
		return err
	}
	b, err := tx.CreateBucket(bucketRetracted)
	if err != nil {
		return err
	}
	for writer, kept := range l.keptByWriter(tips) {
		args := append([]string{"rev-list"}, kept...)
		if live := tips[LedgerRefPrefix+writer]; live != "" {
			args = append(args, "^"+live)
		} else if l.liveRefBroken(writer) {
			continue
		}
		out, err := l.repo.Git(args...)
		if err != nil {
			return fmt.Errorf("reading what %s retracted: %w", writer, err)
		}
		for _, c := range strings.Fields(string(out)) {
			if oid, ok := oidBytes(c); ok {
				if err := b.Put(oid, nil); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// keptByWriter groups the quarantined tips by writer.
func (l *Ledger) keptByWriter(tips map[string]string) map[string][]string {
	out := map[string][]string{}
	for r, t := range tips {
		if strings.HasPrefix(r, QuarantinePrefix) {
			w := writerOf(r)
			out[w] = append(out[w], t)
		}
	}
	return out
}

func (l *Ledger) liveRefBroken(writer string) bool {
	_, err := l.refs.Read(LedgerRefPrefix + writer)
	var b gitref.BrokenRef
	return errors.As(err, &b)
}

// retractedSet is the index's record of retracted events, nil when there
// are none (the common case costs one cursor step).
func retractedSet(tx *bolt.Tx) *bolt.Bucket {
	b := tx.Bucket(bucketRetracted)
	if b == nil {
		return nil
	}
	if k, _ := b.Cursor().First(); k == nil {
		return nil
	}
	return b
}

// setAsideBrokenRef moves the unreadable file of another writer's ref out
// of git's way (git fetch refuses to run beside it) into the ledger's
// state directory, and returns where it went.
func (l *Ledger) setAsideBrokenRef(b gitref.BrokenRef) (string, error) {
	if filepath.Base(b.Path) == "packed-refs" {
		return "", fmt.Errorf("%v; it is a line of packed-refs: remove it with git update-ref -d %s", b, b.Name)
	}
	dir := filepath.Join(stateDir(l.repo.CommonDir), "broken-refs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, writerOf(b.Name)+"-"+l.opts.Now().UTC().Format("20060102T150405.000000000Z"))
	if err := os.Rename(b.Path, dst); err != nil {
		return "", fmt.Errorf("moving the unreadable ref %s aside: %w", b.Name, err)
	}
	return dst, nil
}

func oidBytes(hexID string) ([]byte, bool) {
	if len(hexID) != 40 {
		return nil, false
	}
	b, err := hex.DecodeString(hexID)
	return b, err == nil
}

// dropRedundantKept deletes quarantined tips their writer's current ref
// holds again (a broken ref restored by a fetch): nothing in them is lost.
func (l *Ledger) dropRedundantKept(tips map[string]string) {
	for r, t := range tips {
		if !strings.HasPrefix(r, QuarantinePrefix) {
			continue
		}
		if live := tips[LedgerRefPrefix+writerOf(r)]; live != "" && isAncestor(l.repo, t, live) {
			if err := l.repo.DeleteRef(r, t); err == nil {
				delete(tips, r)
			}
		}
	}
}

// verifyKept reports, for each writer with quarantined tips, the events
// this clone had read that the writer's current ref no longer holds.
func (l *Ledger) verifyKept(rep *VerifyReport) error {
	tips, _, err := l.refs.ListAll(LedgerRefPrefix) // unreadable ones are reported already
	if err != nil {
		return err
	}
	kept, _, err := l.refs.ListAll(QuarantinePrefix)
	if err != nil {
		return err
	}
	for r, t := range kept {
		tips[r] = t
	}
	byWriter := l.keptByWriter(tips)
	writers := make([]string, 0, len(byWriter))
	for w := range byWriter {
		writers = append(writers, w)
	}
	sort.Strings(writers)
	for _, w := range writers {
		ref := LedgerRefPrefix + w
		args := append([]string{"log", "--format=%s"}, byWriter[w]...)
		if live := tips[ref]; live != "" {
			args = append(args, "^"+live)
		}
		out, err := l.repo.Git(args...)
		if err != nil {
			rep.Findings = append(rep.Findings, Finding{Code: "unreadable-ref", Ref: ref, Message: fmt.Sprintf("reading the quarantined tips of %s: %v", w, err)})
			continue
		}
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "agentproto" {
				ids = append(ids, f[2])
			}
		}
		if len(ids) == 0 {
			continue
		}
		sort.Strings(ids)
		rep.Findings = append(rep.Findings, Finding{Code: "rewritten-ref", Ref: ref,
			Message: fmt.Sprintf("writer %s no longer holds %d events this clone had read (%s); they stay readable, marked retracted, under %s",
				w, len(ids), strings.Join(ids, ", "), QuarantinePrefix+w+"/")})
	}
	return nil
}
