package daemon

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/gitstore/memstore"
)

// batches is a store that keeps the size of every append and holds the
// first one until told, so that events queue behind it.
type batches struct {
	*memstore.Store
	mu      sync.Mutex
	sizes   []int
	release chan struct{}
}

func (b *batches) Append(drafts []gitstore.Draft) (*gitstore.AppendResult, error) {
	b.mu.Lock()
	first := len(b.sizes) == 0
	b.sizes = append(b.sizes, len(drafts))
	b.mu.Unlock()
	if first {
		<-b.release
	}
	return b.Store.Append(drafts)
}

func (b *batches) appends() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.sizes)
}

func spawnDraft(t *testing.T, session, step string) gitstore.Draft {
	t.Helper()
	d, err := spawnKind.Draft(eventID(sessionRef{Session: session}, KindSpawn, step), Spawn{sessionRef: sessionRef{Session: session}, Step: step})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ids(t *testing.T, s gitstore.Store) []string {
	t.Helper()
	var out []string
	for e, err := range s.Events(gitstore.Query{Reverse: true}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.ID)
	}
	return out
}

// Events queued while an append runs go together in the next one, in the
// order they came, and flush returns only once all of them are written.
func TestJournalKeepsOrderAndBatches(t *testing.T) {
	store := &batches{Store: memstore.New(), release: make(chan struct{})}
	j := newJournal(store, t.Logf)
	var want []string
	for i := 0; i < 5; i++ {
		d := spawnDraft(t, "s-1", fmt.Sprintf("step%d", i))
		want = append(want, d.ID)
		j.add(d)
	}
	flushed := make(chan struct{})
	go func() { j.flush(); close(flushed) }()
	time.Sleep(20 * time.Millisecond) // time for a flush that does not wait to return
	select {
	case <-flushed:
		t.Fatal("flush returned while the first append was still held")
	default:
	}
	close(store.release)
	<-flushed
	if got := ids(t, store); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("ledger holds %v, want %v", got, want)
	}
	if n := len(store.sizes); n < 1 || n > 2 || store.sizes[0]+sum(store.sizes[1:]) != 5 {
		t.Fatalf("appends of sizes %v: want the first event alone or all five, then the rest in one batch", store.sizes)
	}
	j.flush() // nothing queued: returns at once
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// An event the ledger refuses (its id taken by other content) is logged
// and the events batched with it are written all the same.
func TestJournalRefusalKeepsTheOthers(t *testing.T) {
	store := &batches{Store: memstore.New(), release: make(chan struct{})}
	var mu sync.Mutex
	var logged []string
	j := newJournal(store, func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	})
	first := spawnDraft(t, "s-1", "ping")
	j.add(first)
	clash, err := spawnKind.Draft(first.ID, Spawn{sessionRef: sessionRef{Session: "s-1", Turn: 9}, Step: "ping"})
	if err != nil {
		t.Fatal(err)
	}
	after := spawnDraft(t, "s-1", "prompt")
	j.add(clash)
	j.add(after)
	close(store.release)
	j.flush()
	if got := ids(t, store); strings.Join(got, " ") != first.ID+" "+after.ID {
		t.Fatalf("ledger holds %v, want %s then %s", got, first.ID, after.ID)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], first.ID) {
		t.Fatalf("logged %q, want the refusal of the clash alone", logged)
	}
}
