package e2e

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// For 30 seconds, appenders, readers, git gc, git pack-refs and ledger
// reindex run at once: no command fails, and every appended event is there
// at the end.
func TestLedgerMaintenanceRacesFailNoCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 30 s")
	}
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "ledger", "append", "--kind", "note", "--id", "seed", "--data", "{}")
	deadline := time.Now().Add(30 * time.Second)
	var (
		wg                 sync.WaitGroup
		mu                 sync.Mutex
		failed             []string
		appended, reads, m atomic.Int64
	)
	fail := func(what string, err error, errOut string) {
		mu.Lock()
		defer mu.Unlock()
		failed = append(failed, fmt.Sprintf("%s: %v: %s", what, err, strings.TrimSpace(errOut)))
	}
	loop := func(body func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				body(i)
			}
		}()
	}
	for p := 0; p < 2; p++ {
		loop(func(i int) {
			id := fmt.Sprintf("p%d-%d", p, i)
			if _, errOut, err := sh(t, dir, nil, "git", "agentproto", "ledger", "append", "--kind", "note", "--id", id, "--data", `{"p":1}`); err != nil {
				fail("append "+id, err, errOut)
				return
			}
			appended.Add(1)
		})
	}
	loop(func(i int) {
		args := []string{"agentproto", "ledger", "log", "--json"}
		if i%2 == 1 {
			args = []string{"agentproto", "ledger", "show", "seed"}
		}
		if _, errOut, err := sh(t, dir, nil, "git", args...); err != nil {
			fail(strings.Join(args, " "), err, errOut)
		}
		reads.Add(1)
	})
	loop(func(i int) {
		var args []string
		switch i % 3 {
		case 0:
			args = []string{"agentproto", "ledger", "reindex"}
		case 1:
			args = []string{"pack-refs", "--all", "--prune"}
		default:
			args = []string{"gc", "--quiet"}
		}
		_, errOut, err := sh(t, dir, nil, "git", args...)
		// git's own commands may fail to take a lock an append holds:
		// that is their protocol; ours must never fail.
		if err != nil && args[0] == "agentproto" {
			fail(strings.Join(args, " "), err, errOut)
		}
		m.Add(1)
	})
	wg.Wait()
	for _, f := range failed {
		t.Error(f)
	}
	t.Logf("%d appends, %d reads, %d maintenance runs, %d failed", appended.Load(), reads.Load(), m.Load(), len(failed))
	if want := int(appended.Load()) + 1; countEvents(t, dir) != want {
		t.Fatalf("ledger has %d events, want %d", countEvents(t, dir), want)
	}
	must(t, dir, "git", "agentproto", "ledger", "verify")
}
