package sdk

import (
	"sync"
	"time"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// retainBytes bounds the output kept for replay to a reconnecting host; the
// host persists everything it receives, so only a short gap needs replay.
// A connected reader that falls behind slows the agent down instead of
// losing output.
const retainBytes = 32 << 20

// eventLog numbers events and lets several readers follow them.
type eventLog struct {
	mu      sync.Mutex
	cond    *sync.Cond
	events  []*proto.Event
	bytes   int
	next    uint64
	exited  bool
	readers map[int]uint64 // reader -> last seq it was given
	nextRd  int
}

func newEventLog() *eventLog {
	l := &eventLog{next: 1, readers: map[int]uint64{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// trim drops the oldest events beyond retainBytes that every connected
// reader has already been given.
func (l *eventLog) trim() {
	floor := ^uint64(0)
	for _, pos := range l.readers {
		floor = min(floor, pos)
	}
	for l.bytes > retainBytes && len(l.events) > 1 && l.events[0].Seq <= floor {
		l.bytes -= len(l.events[0].Data) + len(l.events[0].Text)
		l.events = l.events[1:]
	}
}

func (l *eventLog) register() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nextRd++
	l.readers[l.nextRd] = 0
	return l.nextRd
}

func (l *eventLog) advance(rd int, seq uint64) {
	l.mu.Lock()
	l.readers[rd] = seq
	l.cond.Broadcast()
	l.mu.Unlock()
}

func (l *eventLog) unregister(rd int) {
	l.mu.Lock()
	delete(l.readers, rd)
	l.cond.Broadcast()
	l.mu.Unlock()
}

func (l *eventLog) add(e *proto.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.exited {
		return // nothing follows the end of a session
	}
	e.Seq = l.next
	l.next++
	e.UnixNanos = time.Now().UnixNano()
	l.events = append(l.events, e)
	l.bytes += len(e.Data) + len(e.Text)
	if e.Kind == proto.EventKind_EVENT_KIND_EXITED {
		l.exited = true
	}
	l.cond.Broadcast()
	l.trim()
	for l.bytes > retainBytes && len(l.readers) > 0 && !l.exited {
		l.cond.Wait() // a reader is behind: wait for it rather than drop
		l.trim()
	}
}

// wait returns the events after seq, blocking until there is one or the
// log is closed by an exit; done is true once the exit event was returned.
func (l *eventLog) wait(after uint64, stop <-chan struct{}) (evs []*proto.Event, done bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		for i, e := range l.events {
			if e.Seq > after {
				evs = append([]*proto.Event(nil), l.events[i:]...)
				last := evs[len(evs)-1]
				return evs, last.Kind == proto.EventKind_EVENT_KIND_EXITED
			}
		}
		select {
		case <-stop:
			return nil, true
		default:
		}
		l.cond.Wait()
	}
}

// wake lets waiters notice a cancelled stream.
func (l *eventLog) wake() {
	l.mu.Lock()
	l.cond.Broadcast()
	l.mu.Unlock()
}

// emitter turns Emitter calls into events.
type emitter struct {
	log *eventLog
	// bound is the adapter's Info.Capabilities: no session declares more.
	bound []string
	// resumes: bound has CapResume, so Resumable may be sent.
	resumes bool
}

func (e emitter) Output(p []byte) {
	if len(p) == 0 {
		return
	}
	e.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_OUTPUT, Data: append([]byte(nil), p...)})
}
func (e emitter) TurnStarted() {
	e.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_TURN_STARTED})
}
func (e emitter) TurnEnded() { e.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_TURN_ENDED}) }
func (e emitter) Error(text, fault string) {
	e.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_ERROR, Text: text, Fault: fault})
}
func (e emitter) Exited(code int) {
	e.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_EXITED, ExitCode: int32(code)})
}
