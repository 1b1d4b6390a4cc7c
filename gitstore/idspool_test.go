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
