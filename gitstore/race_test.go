package gitstore

import (
	"fmt"
	"sync"
	"testing"
)

// One Ledger used by several goroutines at once, as the sessions daemon
// uses its ledger: appends and reads interleave, nothing is lost, and
// under -race no state of one call is shared with another.
func TestLedgerIsSafeForConcurrentUse(t *testing.T) {
	l, _ := newLedger(t)
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := l.AppendUser([]Draft{note(fmt.Sprintf("w%d-%d", w, i), `{"i":1}`)}); err != nil {
					errs <- err
				}
				if err := l.Each(Query{Limit: 3}, func(*Event) error { return nil }); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if ids := logIDs(t, l, Query{}); len(ids) != workers*each {
		t.Fatalf("%d events, want %d", len(ids), workers*each)
	}
}
