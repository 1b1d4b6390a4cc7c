package gitstore

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	bolt "go.etcd.io/bbolt"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitobj"
)

// RepairCommand is the one command that recovers this clone's ledger from
// a corrupt or missing object on its own ref.
const RepairCommand = "git agentproto ledger repair"

// checkCommit reads commit oid from the object store and checks that it is
// whole: a commit whose content hashes to its id. An append runs it on the
// tip it builds on, so nothing is ever built on a damaged parent.
func (l *Ledger) checkCommit(oid string) error {
	set := gitobj.OpenPackSet(l.repo.CommonDir)
	defer set.Close()
	r := gitobj.NewReader(set)
	defer r.Close()
	h := plumbing.NewHash(oid)
	typ, data, found, err := r.Read(h, nil)
	if err == nil && !found {
		// Not in our packs or loose objects as we read them (an alternate
		// store, a delta on a base elsewhere): ask git.
		out, gerr := l.repo.Git("cat-file", "commit", oid)
		typ, data, found, err = plumbing.CommitObject, out, gerr == nil, gerr
	}
	switch {
	case err != nil:
		return fmt.Errorf("commit %s cannot be read: %v", oid, err)
	case !found:
		return fmt.Errorf("commit %s is missing", oid)
	case typ != plumbing.CommitObject:
		return fmt.Errorf("object %s is a %s, not a commit", oid, typ)
	}
	if id := gitobj.New(typ, data).ID; hex.EncodeToString(id[:]) != oid {
		return fmt.Errorf("commit %s is corrupt: its content does not hash to its id", oid)
	}
	return nil
}

// damagedTip is the error of an append that found its tip damaged.
func damagedTip(ref string, cause error) error {
	return fault.Invalidf("%s: %v; nothing was written. Run %s: it keeps every readable event and records the unreadable ones again from the index", ref, cause, RepairCommand)
}

// RepairReport says what Repair did.
type RepairReport struct {
	Ref string `json:"ref"`
	// Damaged lists the commits of this clone's ref found unreadable.
	Damaged []string `json:"damaged"`
	// KeptTip is the newest commit whose whole history reads; the ref now
	// points there ("" when none does).
	KeptTip string `json:"kept_tip"`
	// Recorded lists the record ids written again from the index.
	Recorded []string `json:"recorded"`
	// Lost lists what could not be recorded again, with the reason.
	Lost []string `json:"lost"`
}

// Repair recovers this clone's writer ref from damaged objects: it moves
// the ref back to the newest commit whose history reads whole, and records
// again, from the index, the events of the commits after it. Other
// writers' refs are restored by sync instead. With nothing damaged it
// changes nothing.
func (l *Ledger) Repair() (*RepairReport, error) {
	writer, _, err := EnsureWriterID(l.repo.CommonDir)
	if err != nil {
		return nil, err
	}
	ref := LedgerRefPrefix + writer
	rep := &RepairReport{Ref: ref, Damaged: []string{}, Recorded: []string{}, Lost: []string{}}
	tip, err := l.refs.Read(ref)
	if err != nil || tip == "" {
		return rep, err
	}
	ix, err := openIndex(l.repo.CommonDir, false)
	if err != nil {
		return nil, err
	}
	var own []indexed
	err = ix.db.View(func(tx *bolt.Tx) error {
		own, err = ownEvents(tx, writer)
		return err
	})
	ix.close()
	if err != nil {
		return nil, err
	}
	// The newest commit of ours whose whole chain reads.
	keep := -1
	for i, ev := range own {
		if cerr := l.checkCommit(ev.commit); cerr != nil {
			rep.Damaged = append(rep.Damaged, ev.commit)
			break
		}
		keep = i
	}
	if len(rep.Damaged) == 0 {
		if cerr := l.checkCommit(tip); cerr == nil && (keep < 0 || own[keep].commit == tip) {
			rep.KeptTip = tip
			return rep, nil // nothing to repair
		}
		rep.Damaged = append(rep.Damaged, tip)
	}
	var drafts []Draft
	if keep >= 0 {
		rep.KeptTip = own[keep].commit
	}
	for _, ev := range own[keep+1:] {
		e, derr := decodeEnvelope(ev.envelope)
		if derr != nil {
			rep.Lost = append(rep.Lost, fmt.Sprintf("commit %s: %v", ev.commit, derr))
			continue
		}
		d, lost := l.redraft(e)
		if lost != "" {
			rep.Lost = append(rep.Lost, lost)
			continue
		}
		drafts = append(drafts, d)
	}
	if err := l.refs.Update(ref, rep.KeptTip, tip); err != nil {
		return nil, fmt.Errorf("moving %s back to %s: %w", ref, rep.KeptTip, err)
	}
	// The index still holds the damaged commits' events: build it again
	// from the ref that now reads whole, or they would count as recorded.
	if _, _, err := l.Reindex(); err != nil {
		return nil, err
	}
	if len(drafts) == 0 {
		return rep, nil
	}
	for i := range drafts {
		if err := drafts[i].normalize(); err != nil {
			return nil, err
		}
	}
	res := &AppendResult{Writer: writer}
	if err := l.appendOnce(drafts, res); err != nil {
		return nil, fmt.Errorf("recording the events again: %w", err)
	}
	rep.Recorded = append(rep.Recorded, res.Written...)
	return rep, nil
}

// redraft turns an indexed event back into a draft, with its attachments
// read from git; an attachment git cannot read makes the event lost.
func (l *Ledger) redraft(e *Event) (Draft, string) {
	d := Draft{Kind: e.Kind, ID: e.ID, Goal: e.Goal, Agent: e.Agent, Data: e.Data}
	for _, a := range e.Attachments {
		b, err := l.repo.BlobByID(a.OID)
		if err != nil || int64(len(b)) != a.Size {
			return Draft{}, fmt.Sprintf("record %s: attachment %s (blob %s) cannot be read", e.ID, a.Name, a.OID)
		}
		d.Attachments = append(d.Attachments, AttachmentInput{Name: a.Name, Content: b})
	}
	return d, ""
}

// ownEvents returns the events of writer in the index, oldest first.
func ownEvents(tx *bolt.Tx, writer string) ([]indexed, error) {
	var out []indexed
	b := tx.Bucket(bucketEvents)
	if b == nil {
		return nil, errors.New("the ledger index is empty: nothing to repair from")
	}
	err := b.ForEach(func(k, v []byte) error {
		if _, w, _, ok := splitOrderKey(k); ok && string(w) == writer {
			ix, err := decodeIndexed(k, v)
			if err != nil {
				return err
			}
			out = append(out, ix)
		}
		return nil
	})
	return out, err
}

// chainErr names the ref whose history could not be read and, when git
// says an object is damaged, the command that recovers from it.
func chainErr(ref string, err error) error {
	s := err.Error()
	if strings.Contains(s, "corrupt") || strings.Contains(s, "unable to read") || strings.Contains(s, "bad object") || strings.Contains(s, "inflate") {
		return fault.Invalidf("reading %s: %v; the index was left as it was. Run %s if it is this clone's ref; another writer's needs the object from a clone that holds it whole", ref, err, RepairCommand)
	}
	return fmt.Errorf("reading %s: %w", ref, err)
}
