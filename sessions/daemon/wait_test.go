package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

func bareDaemon() *Daemon {
	d := &Daemon{policies: newPolicyEngine()}
	d.registry.init()
	return d
}

// await wakes on a change that makes it done, and gives up when its time
// is over even if nothing changes.
func TestAwait(t *testing.T) {
	d := bareDaemon()
	ready := false
	go func() {
		time.Sleep(20 * time.Millisecond)
		d.mu.Lock()
		ready = true
		d.changed.Broadcast()
		d.mu.Unlock()
	}()
	if !d.await(time.Minute, func() bool { return ready }) {
		t.Fatal("await missed the change")
	}
	checks := 0
	if d.await(30*time.Millisecond, func() bool { checks++; return false }) {
		t.Fatal("await reported done for a condition never true")
	}
	if checks < 2 {
		t.Fatalf("the condition was checked %d times; once more is due when the time is up", checks)
	}
}

func TestWaitArgumentsAreChecked(t *testing.T) {
	d := bareDaemon()
	if _, err := d.wait([]string{"s-000000000000"}, "forever", "1m"); err == nil || !strings.Contains(err.Error(), "--until takes turn-end or exit") {
		t.Errorf("bad --until: %v", err)
	}
	if _, err := d.wait(nil, "", "40"); err == nil || !strings.Contains(err.Error(), "not a duration with a unit") {
		t.Errorf("a bare number: %v", err)
	}
	if _, err := d.monitor(nil, "-1s"); err == nil || !strings.Contains(err.Error(), "--for") {
		t.Errorf("a negative --for: %v", err)
	}
}

// Every operation of the protocol has a handler, and nothing else does.
func TestHandlerTable(t *testing.T) {
	ops := []string{sessions.OpPing, sessions.OpStart, sessions.OpPrompt, sessions.OpKill, sessions.OpWait, sessions.OpMonitor, sessions.OpGC, sessions.OpPolicyAttach, sessions.OpPolicyList, sessions.OpPolicyCancel, sessions.OpPolicyWait, sessions.OpStop}
	for _, op := range ops {
		if handlers[op] == nil {
			t.Errorf("no handler for %s", op)
		}
	}
	if len(handlers) != len(ops) {
		t.Errorf("%d handlers for %d operations", len(handlers), len(ops))
	}
	resp := bareDaemon().handle(&sessions.Request{Op: "rm -rf"})
	if resp.OK || !strings.Contains(resp.Error, `unknown operation "rm -rf"`) || resp.Kind == 0 {
		t.Errorf("unknown op: %+v", resp)
	}
}
