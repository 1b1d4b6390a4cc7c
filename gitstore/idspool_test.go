package gitstore

import (
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// After a rebuild every id reads back its event, also when one id names
// events of two writers (the first in ledger order wins) and when the ids
// span several of the spool's transactions.
func TestRebuildKeepsEveryID(t *testing.T) {
	l, _ := newLedger(t)
	var drafts []Draft
	for i := 0; i < 300; i++ {
		drafts = append(drafts, note(fmt.Sprintf("id-%03d", (i*7919)%300), fmt.Sprintf(`{"i":%d}`, i)))
	}
	if _, err := l.AppendUser(drafts); err != nil {
		t.Fatal(err)
	}
	var spool idSpool
	for i := 0; i < 300; i++ {
		spool.add(fmt.Sprintf("x-%d", i%50), uint64(1000-i), fmt.Sprintf("w-%d", i%3))
	}
	if _, _, err := l.Reindex(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		id := fmt.Sprintf("id-%03d", (i*7919)%300)
		e, _, err := l.Get(id)
		if err != nil || e.ID != id || string(e.Data) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Fatalf("%s: %v %+v", id, err, e)
		}
	}
	ix, err := openIndex(l.repo.CommonDir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.close()
	if err := spool.write(ix.db, 7); err != nil {
		t.Fatal(err)
	}
	err = ix.db.View(func(tx *bolt.Tx) error {
		for i := 0; i < 50; i++ {
			// The smallest clock among the entries of x-i: i + 250.
			want := idRef(orderKey(uint64(1000-(i+250)), fmt.Sprintf("w-%d", (i+250)%3), "x"), "x")
			if got := tx.Bucket(bucketIDs).Get([]byte(fmt.Sprintf("x-%d", i))); string(got) != string(want) {
				t.Errorf("x-%d: %x, want %x", i, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A history read in pieces lists every commit once, oldest first.
func TestPiecesListTheWholeChain(t *testing.T) {
	l, _ := newLedger(t)
	var drafts []Draft
	for i := 0; i < 30; i++ {
		drafts = append(drafts, note(fmt.Sprintf("p-%02d", i), `{}`))
	}
	res, err := l.AppendUser(drafts)
	if err != nil {
		t.Fatal(err)
	}
	bounds := append(pieceBounds(l.repo, res.Tip, 7), "")
	if len(bounds) != 6 { // the tip, 4 bounds, and the end
		t.Fatalf("bounds %q", bounds)
	}
	var ids []string
	for i := len(bounds) - 2; i >= 0; i-- {
		err := streamChain(l.repo, bounds[i], bounds[i+1], 4, func(recs []logRecord) error {
			for _, r := range recs {
				ids = append(ids, r.event.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range ids {
		if id != fmt.Sprintf("p-%02d", i) {
			t.Fatalf("read %q", ids)
		}
	}
	if len(ids) != 30 {
		t.Fatalf("read %d ids", len(ids))
	}
}
