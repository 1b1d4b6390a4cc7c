package daemon

import (
	"sync"

	"github.com/agentproto/agentproto/gitstore"
)

// journal writes the daemon's events to the ledger behind the sessions,
// in the order they happened. An append is a few milliseconds of objects,
// a ref update and its fsync; a session's start made eight of them one
// after the other (its launch, the ping's turn, the brief's), each holding
// up the next step. Now a step queues its event and goes on; the events
// that arrive while one append runs go together in the next, one ref
// update for all. Every answer the daemon gives waits for what was queued
// before it (flush), so a caller that reads the ledger after an answer
// finds there every event of what it asked.
type journal struct {
	ledger gitstore.Store
	logf   func(format string, args ...any)

	mu      sync.Mutex
	written *sync.Cond // broadcast when a batch is done
	queue   []gitstore.Draft
	added   uint64 // drafts ever queued
	done    uint64 // drafts ever handled: appended, or refused and logged
	writing bool   // a writer goroutine is at work
}

func newJournal(ledger gitstore.Store, logf func(string, ...any)) *journal {
	j := &journal{ledger: ledger, logf: logf}
	j.written = sync.NewCond(&j.mu)
	return j
}

// add queues one event; a writer starts when none is at work.
func (j *journal) add(d gitstore.Draft) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.queue = append(j.queue, d)
	j.added++
	if !j.writing {
		j.writing = true
		go j.write()
	}
}

// write appends the queue, batch by batch, until it is empty.
func (j *journal) write() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for len(j.queue) > 0 {
		batch := j.queue
		j.queue = nil
		j.mu.Unlock()
		j.append(batch)
		j.mu.Lock()
		j.done += uint64(len(batch))
		j.written.Broadcast()
	}
	j.writing = false
}

// append writes one batch. A batch is all or nothing, so when it is
// refused (an event id reused with other content) each event is tried on
// its own: one bad event must not take the others with it.
func (j *journal) append(batch []gitstore.Draft) {
	_, err := j.ledger.Append(batch)
	if err == nil {
		return
	}
	if len(batch) > 1 {
		for _, d := range batch {
			if _, err = j.ledger.Append([]gitstore.Draft{d}); err != nil {
				j.logf("ledger: %s %s: %v", d.Kind, d.ID, err)
			}
		}
		return
	}
	j.logf("ledger: %s %s: %v", batch[0].Kind, batch[0].ID, err)
}

// flush returns once every event queued before it is written.
func (j *journal) flush() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for until := j.added; j.done < until; {
		j.written.Wait()
	}
}
