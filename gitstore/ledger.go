// Package gitstore is the agentproto ledger: an append-only log of events
// stored as commits on refs/agentproto/ledger/<writer>, one ref per clone,
// read as the union of every writer's ref in (lamport, writer, id) order.
//
// Git is the source of truth. A bbolt index under the common git dir caches
// what was read, keyed by each ref's tip, so reads never replay history.
//
// Features see a narrow Store (store.go). Each declares the kinds it owns
// with the type of their data (kinds.go: Owner, Declare, Kind.Record) and
// reads them back through one typed Fold (fold.go); the ledger takes a
// declared kind only from its owner, and user kinds only from AppendUser.
package gitstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitref"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Options tune a ledger; the zero value uses the defaults.
type Options struct {
	// PackThreshold is the number of events from which an append writes one
	// pack instead of loose objects. Default 16.
	PackThreshold int
	// AutoMaintenance is the number of loose objects written before the
	// ledger packs them (git repack -d). 0 uses the default, 2000; negative
	// disables.
	AutoMaintenance int
	// Now stamps new events; tests fix it.
	Now func() time.Time
}

// Ledger reads and appends events of one repository. It is safe for
// concurrent use by several goroutines (and several processes: appends
// are compare-and-swap on the ref); what one call needs to remember
// lives in that call.
type Ledger struct {
	repo *gitrepo.Repo
	refs gitref.Store
	objs objectWriter
	opts Options
	seal *sealState
}

// ErrNotFound is returned for a record id the ledger does not hold.
var ErrNotFound = errors.New("no such record")

// Open returns the ledger of repo. It writes nothing.
func Open(repo *gitrepo.Repo, opts Options) *Ledger {
	if opts.PackThreshold <= 0 {
		opts.PackThreshold = 16
	}
	if opts.AutoMaintenance == 0 {
		opts.AutoMaintenance = 2000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Ledger{
		repo: repo,
		refs: gitref.Store{Common: repo.CommonDir},
		objs: objectWriter{dir: filepath.Join(repo.CommonDir, "objects")},
		opts: opts,
		seal: &sealState{},
	}
}

// view runs fn on an index that is current with the refs. It takes the
// shared read lock when the index is already fresh and upgrades to a write
// transaction only when something must be ingested.
func (l *Ledger) view(w *Warnings, fn func(c *call, tx *bolt.Tx) error) error {
	return l.withIndex(w, func(c *call) error {
		return l.viewOnce(w, func(tx *bolt.Tx) error { return fn(c, tx) })
	})
}

func (l *Ledger) viewOnce(warn *Warnings, fn func(tx *bolt.Tx) error) error {
	tips, err := l.tips(warn)
	if err != nil {
		return err
	}
	ix, err := openIndex(l.repo.CommonDir, true)
	if err == nil {
		fresh := false
		err = ix.db.View(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			if meta == nil || string(meta.Get(keyVersion)) != indexVersion || !sameTips(storedTips(tx), tips) {
				return nil
			}
			fresh = true
			return fn(tx)
		})
		ix.close()
		if err != nil || fresh {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	ix, err = openIndex(l.repo.CommonDir, false)
	if err != nil {
		return err
	}
	defer ix.close()
	return l.refreshed(ix.db, warn, func(tx *bolt.Tx, _ map[string]string) error { return fn(tx) })
}

// Get returns the event recorded under id and the commit that holds it.
// It returns an error wrapping ErrNotFound when there is none.
func (l *Ledger) Get(id string) (*Event, string, error) {
	return l.Lookup(id, nil)
}

// Lookup is Get, adding the warnings it met to warn when it is not nil.
func (l *Ledger) Lookup(id string, warn *Warnings) (*Event, string, error) {
	if err := ValidateID(id); err != nil {
		return nil, "", err
	}
	var (
		ev     *Event
		commit string
	)
	err := l.view(warn, func(_ *call, tx *bolt.Tx) error {
		got, ok, err := lookupID(tx, id)
		if err != nil {
			return err
		}
		if !ok {
			return fault.Wrap(fault.Invalid, fmt.Errorf("%w: %s", ErrNotFound, id))
		}
		e, err := decodeEnvelope(got.envelope)
		if err != nil {
			return err
		}
		if r := retractedSet(tx); r != nil {
			if oid, ok := oidBytes(got.commit); ok {
				e.Retracted = r.Get(oid) != nil
			}
		}
		ev, commit = e, got.commit
		return nil
	})
	return ev, commit, err
}

// AppendResult says what an append did.
type AppendResult struct {
	Writer   string
	Written  []string // record ids written now
	Existing []string // record ids that were already recorded with the same content
	Tip      string   // the writer ref after the append
	// Warnings are the problems met that lost nothing: commits on a peer's
	// ref that are not events, an index rebuilt or left behind.
	Warnings Warnings

	moved bool // the ref took the events: the append happened
}

// Append records drafts of feature kinds as events on this clone's writer
// ref, in order. The whole batch is checked first (Validate): a user kind
// (note, x.NAME) goes through AppendUser instead, and a declared kind only
// through its Owner. A record id already recorded with the same content is
// skipped; with other content the batch fails as a Conflict and nothing is
// written. The events become visible at once, by one compare-and-swap of
// the writer ref. When the error is not nil the result may still carry
// the warnings met.
func (l *Ledger) Append(drafts []Draft) (*AppendResult, error) {
	return l.appendChecked(drafts, false)
}

// AppendUser is Append for the user path (ledger append): it takes only
// user kinds, note and x.NAME, and refuses every kind a command owns.
func (l *Ledger) AppendUser(drafts []Draft) (*AppendResult, error) {
	return l.appendChecked(drafts, true)
}

func (l *Ledger) appendChecked(drafts []Draft, user bool) (*AppendResult, error) {
	if err := Validate(drafts, user); err != nil {
		return nil, err
	}
	writer, _, err := EnsureWriterID(l.repo.CommonDir)
	if err != nil {
		return nil, err
	}
	res := &AppendResult{Writer: writer}
	err = l.withIndex(&res.Warnings, func(*call) error {
		if res.moved {
			return nil // a retry on a rebuilt index: the events are recorded
		}
		return l.appendOnce(drafts, res)
	})
	if err != nil && res.moved {
		// The events are on the ref, which is the truth; the index catches
		// up from git on the next read.
		res.Warnings.add(fmt.Sprintf("the events are recorded on %s, but the ledger index was not updated: %v", LedgerRefPrefix+writer, err))
		err = nil
	}
	if err != nil {
		return &AppendResult{Writer: writer, Warnings: res.Warnings}, err
	}
	return res, nil
}

// staleRetries bounds how often an append builds again on a ref that moved
// under it: 30 tries with growing random pauses span about half a second, where
// five back-to-back tries lost once in a thousand appends racing reindex,
// pack-refs and gc (e2e TestLedgerMaintenanceRacesFailNoCommand).
const staleRetries = 30

// appendOnce is one attempt of Append on the index. res.moved says whether
// the writer ref took the new events, whatever error follows.
func (l *Ledger) appendOnce(drafts []Draft, res *AppendResult) error {
	ref := LedgerRefPrefix + res.Writer
	writer := res.Writer
	ix, err := openIndex(l.repo.CommonDir, false)
	if err != nil {
		return err
	}
	defer ix.close()
	var loose int
	for attempt := 0; ; attempt++ {
		res.Written, res.Existing, loose = nil, nil, 0
		err = l.refreshed(ix.db, &res.Warnings, func(tx *bolt.Tx, tips map[string]string) error {
			fresh, err := l.plan(tx, drafts, res)
			if err != nil || len(fresh) == 0 {
				res.Tip = tips[ref]
				return err
			}
			if tip := tips[ref]; tip != "" {
				if err := l.checkCommit(tip); err != nil {
					return damagedTip(ref, err)
				}
			}
			return l.write(tx, writer, tips[ref], fresh, res, &loose)
		})
		if !errors.Is(err, gitref.ErrStale) || attempt >= staleRetries || res.moved {
			break
		}
		// Another writer of the ref (an index renamed by reindex lets two
		// appends hold a lock each, git's pack-refs and gc lock refs too):
		// step aside a little longer each time, at a random moment, so two
		// appends do not collide again and again.
		time.Sleep(time.Duration(1+rand.IntN(2*attempt+2)) * time.Millisecond)
	}
	if err != nil {
		return err
	}
	if loose > 0 {
		l.maintain(ix, &res.Warnings)
	}
	return nil
}

// plan sorts drafts into new ones and ones already recorded, and fails on a
// record id reused with other content.
func (l *Ledger) plan(tx *bolt.Tx, drafts []Draft, res *AppendResult) ([]*pending, error) {
	var fresh []*pending
	inBatch := map[string]*pending{}
	for i := range drafts {
		d := &drafts[i]
		p := newPending(d)
		got, ok, err := lookupID(tx, d.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			e, err := decodeEnvelope(got.envelope)
			if err != nil {
				return nil, err
			}
			if e.contentKey() != p.contentKey() {
				return nil, fault.Conflictf("record id %s is already recorded (commit %s) with other content; nothing was written", d.ID, got.commit[:12])
			}
			res.Existing = append(res.Existing, d.ID)
			continue
		}
		if prev, ok := inBatch[d.ID]; ok {
			if prev.contentKey() != p.contentKey() {
				return nil, fault.Conflictf("record id %s appears twice in the batch with different content; nothing was written", d.ID)
			}
			res.Existing = append(res.Existing, d.ID)
			continue
		}
		inBatch[d.ID] = p
		fresh = append(fresh, p)
		res.Written = append(res.Written, d.ID)
	}
	return fresh, nil
}

// pending is a draft with its attachment blobs built.
type pending struct {
	draft *Draft
	blobs []object
	atts  []Attachment
}

func newPending(d *Draft) *pending {
	p := &pending{draft: d}
	for _, a := range d.Attachments {
		blob := newObject(objBlob, a.Content)
		sum := sha256.Sum256(a.Content)
		p.blobs = append(p.blobs, blob)
		p.atts = append(p.atts, Attachment{Name: a.Name, OID: blob.hex(), Size: int64(len(a.Content)), SHA256: hex.EncodeToString(sum[:])})
	}
	return p
}

func (p *pending) contentKey() string {
	d := p.draft
	return contentKey(d.Kind, d.Goal, d.Agent, d.Data, p.atts)
}

// write builds the commits for fresh events on top of parent, stores the
// objects, moves the ref and indexes the events. It sets res.Tip and
// res.moved once the ref holds the new tip, and *loose to the number of
// loose objects written.
func (l *Ledger) write(tx *bolt.Tx, writer, parent string, fresh []*pending, res *AppendResult, loose *int) error {
	meta := tx.Bucket(bucketMeta)
	lamport := getUint(meta, keyLamport)
	now := l.opts.Now().UTC()
	stamp := now.Format(time.RFC3339Nano)
	objs := make([]object, 0, len(fresh)+1)
	objs = append(objs, newObject(objTree, nil))
	type built struct {
		ev       *Event
		commit   [20]byte
		envelope []byte
	}
	out := make([]built, 0, len(fresh))
	seal := l.sealFor(writer, parent, &res.Warnings)
	tip := parent
	for _, p := range fresh {
		lamport++
		d := p.draft
		e := &Event{Schema: Schema, ID: d.ID, Kind: d.Kind, Lamport: lamport, Writer: writer,
			Time: stamp, Goal: d.Goal, Agent: d.Agent, Attachments: p.atts, Data: d.Data}
		if err := seal(e); err != nil {
			return err
		}
		env, err := encodeEnvelope(e)
		if err != nil {
			return err
		}
		tree := emptyTreeOID
		if len(p.blobs) > 0 {
			entries := map[string][20]byte{}
			for i, b := range p.blobs {
				entries[p.atts[i].Name] = b.oid
			}
			t := treeObject(entries)
			objs = append(objs, p.blobs...)
			objs = append(objs, t)
			tree = t.hex()
		}
		msg := make([]byte, 0, len(env)+64)
		msg = append(msg, "agentproto "+d.Kind+" "+d.ID+"\n\n"...)
		msg = append(msg, env...)
		msg = append(msg, '\n')
		c := commitObject(tree, tip, writer, now.Unix(), msg)
		objs = append(objs, c)
		tip = c.hex()
		out = append(out, built{ev: e, commit: c.oid, envelope: env})
	}
	looseCount := 0
	if len(fresh) >= l.opts.PackThreshold {
		if err := l.objs.writePack(objs); err != nil {
			return fmt.Errorf("writing ledger pack: %w", err)
		}
	} else {
		for _, o := range objs {
			if err := l.objs.writeLoose(o); err != nil {
				return fmt.Errorf("writing ledger object: %w", err)
			}
		}
		looseCount = len(objs)
	}
	ref := LedgerRefPrefix + writer
	if err := l.refs.Update(ref, tip, parent); err != nil {
		// Whether the append happened is whether the ref moved, whatever
		// failed on the way (a full disk after the rename, say).
		if now, rerr := l.refs.Read(ref); rerr != nil || now != tip {
			return err
		}
		res.Warnings.add(fmt.Sprintf("updating %s: %v", ref, err))
	}
	res.Tip, res.moved, *loose = tip, true, looseCount
	// New events sort after everything this writer wrote; full pages fit that.
	tx.Bucket(bucketEvents).FillPercent = 0.95
	for _, b := range out {
		if err := putEvent(tx, b.ev, b.commit, b.envelope); err != nil {
			return err
		}
	}
	if err := putUint(meta, keyLamport, lamport); err != nil {
		return err
	}
	if err := putUint(meta, keyLoose, getUint(meta, keyLoose)+uint64(looseCount)); err != nil {
		return err
	}
	return tx.Bucket(bucketTips).Put([]byte(ref), []byte(tip))
}
