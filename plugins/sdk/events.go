package sdk

import (
	"sync"
	"time"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// retainBytes bounds the output kept for replay to a reconnecting host; the
// host persists everything it receives, so only a short gap needs replay.
const retainBytes = 32 << 20

// eventLog numbers events and lets several readers follow them.
type eventLog struct {
	mu     sync.Mutex
	cond   *sync.Cond
	events []*proto.Event
	bytes  int
	next   uint64
	exited bool
}

func newEventLog() *eventLog {
	l := &eventLog{next: 1}
	l.cond = sync.NewCond(&l.mu)
	return l
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
	for l.bytes > retainBytes && len(l.events) > 1 {
		l.bytes -= len(l.events[0].Data) + len(l.events[0].Text)
		l.events = l.events[1:]
	}
	if e.Kind == proto.EventKind_EVENT_KIND_EXITED {
		l.exited = true
	}
	l.cond.Broadcast()
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
type emitter struct{ log *eventLog }

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
