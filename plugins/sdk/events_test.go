package sdk

import (
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// A connected reader slower than the agent loses nothing: the agent waits.
func TestSlowReaderLosesNothing(t *testing.T) {
	l := newEventLog()
	rd := l.register()
	const chunk, n = 1 << 20, 3 * retainBytes / (1 << 20) // three times the retained bytes
	var got int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer l.unregister(rd)
		var after uint64
		for {
			evs, done := l.wait(after, nil)
			for _, e := range evs {
				got += len(e.Data)
				after = e.Seq
			}
			time.Sleep(time.Millisecond) // slow
			l.advance(rd, after)
			if done {
				return
			}
		}
	}()
	e := emitter{log: l}
	buf := make([]byte, chunk)
	for i := 0; i < n; i++ {
		e.Output(buf)
	}
	e.Exited(0)
	wg.Wait()
	if got != n*chunk {
		t.Fatalf("reader got %d bytes, want %d", got, n*chunk)
	}
}

// Without a reader, old output is dropped beyond the replay window rather
// than blocking the agent.
func TestNoReaderDoesNotBlock(t *testing.T) {
	l := newEventLog()
	e := emitter{log: l}
	buf := make([]byte, 1<<20)
	done := make(chan struct{})
	go func() {
		for i := 0; i < 2*retainBytes/(1<<20); i++ {
			e.Output(buf)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent blocked with no reader connected")
	}
	if l.bytes > retainBytes+len(buf) {
		t.Fatalf("kept %d bytes", l.bytes)
	}
	if l.events[0].Kind != proto.EventKind_EVENT_KIND_OUTPUT {
		t.Fatal("unexpected event")
	}
}
