package cliturn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// events is an Emitter that takes resume states and keeps what it was
// told in order: "started", "ended", "exited", "resumable STATE".
type events struct {
	mu   sync.Mutex
	seen []string
}

func newEvents() *events { return &events{} }

func (e *events) add(s string) { e.mu.Lock(); e.seen = append(e.seen, s); e.mu.Unlock() }

func (e *events) Output([]byte)        {}
func (e *events) Error(string, string) {}
func (e *events) TurnStarted()         { e.add("started") }
func (e *events) TurnEnded()           { e.add("ended") }
func (e *events) Exited(int)           { e.add("exited") }
func (e *events) Resumable(state string) error {
	e.add("resumable " + state)
	return nil
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// waitTurn waits for the running turn to be all done, its announcement
// included.
func waitTurn(t *testing.T, s *Session) {
	t.Helper()
	s.mu.Lock()
	done, turns := s.done, s.turn
	s.mu.Unlock()
	// Start and Prompt set done before they return, and the turn clears
	// it when it has ended: nil after a start is a turn already over.
	if done == nil {
		if turns == 0 {
			t.Fatal("no turn ran")
		}
		return
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end")
	}
}

// remembering is a Driver whose CLI prints an id the driver keeps, as
// claude's session id: "id-N" in turn N, or sleeps on the prompt "slow".
type remembering struct {
	mu       sync.Mutex
	id       string
	turns    []int
	restored []string
}

type stateOf struct {
	ID string `json:"id"`
}

func (d *remembering) Command(t *Turn) (Call, error) {
	d.mu.Lock()
	d.turns = append(d.turns, t.N)
	d.mu.Unlock()
	if t.Prompt == "slow" {
		return Call{Name: "sleep", Args: []string{"30"}}, nil
	}
	return Call{Name: "echo", Args: []string{fmt.Sprint("id-", t.N)}}, nil
}

func (d *remembering) Line(t *Turn, b []byte) { d.mu.Lock(); d.id = string(b); d.mu.Unlock() }

func (d *remembering) ResumeState() json.RawMessage {
	d.mu.Lock()
	defer d.mu.Unlock()
	b, _ := json.Marshal(stateOf{d.id})
	return b
}

func (d *remembering) Restore(state json.RawMessage) error {
	var s stateOf
	if err := ReadState(state, &s); err != nil {
		return err
	}
	if !SafeID(s.ID) {
		return fmt.Errorf("id %q", s.ID)
	}
	d.mu.Lock()
	d.id = s.ID
	d.restored = append(d.restored, string(state))
	d.mu.Unlock()
	return nil
}

func (d *remembering) seenTurns() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]int(nil), d.turns...)
}

// After each turn, once its process has exited, the session says it can
// be resumed with the turn count and the driver's state as of that turn.
func TestResumableAfterEachTurn(t *testing.T) {
	d, ev := &remembering{}, newEvents()
	s, err := NewSession(sdk.StartRequest{Dir: t.TempDir(), InitialPrompt: "one"}, ev, d)
	if err != nil {
		t.Fatal(err)
	}
	waitTurn(t, s)
	if err := s.Prompt(context.Background(), "two", false); err != nil {
		t.Fatal(err)
	}
	waitTurn(t, s)
	s.Terminate(context.Background())
	want := []string{"started", "ended", `resumable {"turn":1,"driver":{"id":"id-1"}}`,
		"started", "ended", `resumable {"turn":2,"driver":{"id":"id-2"}}`, "exited"}
	if got := ev.list(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A session started from a state goes on from it: the driver gets its
// part back, and the prompt runs as the turn after the state's.
func TestResumedSessionRunsTheNextTurn(t *testing.T) {
	d, ev := &remembering{}, newEvents()
	s, err := NewSession(sdk.StartRequest{Dir: t.TempDir(), InitialPrompt: "go on",
		Resume: `{"turn":3,"driver":{"id":"id-3"}}`}, ev, d)
	if err != nil {
		t.Fatal(err)
	}
	waitTurn(t, s)
	if err := s.Prompt(context.Background(), "and on", false); err != nil {
		t.Fatal(err)
	}
	waitTurn(t, s)
	s.Terminate(context.Background())
	if got := d.seenTurns(); len(got) != 2 || got[0] != 4 || got[1] != 5 {
		t.Fatalf("turns %v, want [4 5]", got)
	}
	if len(d.restored) != 1 || d.restored[0] != `{"id":"id-3"}` {
		t.Fatalf("restored %q", d.restored)
	}
	if got := ev.list(); len(got) < 3 || got[2] != `resumable {"turn":4,"driver":{"id":"id-4"}}` {
		t.Fatalf("events %q", got)
	}
}

// Resumed without a prompt, the session is as resumable as it was and
// runs no turn until one comes.
func TestResumedWithoutPromptWaits(t *testing.T) {
	d, ev := &remembering{}, newEvents()
	s, err := NewSession(sdk.StartRequest{Dir: t.TempDir(), Resume: `{"turn":2,"driver":{"id":"abc"}}`}, ev, d)
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.list(); len(got) != 1 || got[0] != `resumable {"turn":2,"driver":{"id":"abc"}}` {
		t.Fatalf("events %q", got)
	}
	if err := s.Prompt(context.Background(), "now", false); err != nil {
		t.Fatal(err)
	}
	waitTurn(t, s)
	s.Terminate(context.Background())
	if got := d.seenTurns(); len(got) != 1 || got[0] != 3 {
		t.Fatalf("turns %v, want [3]", got)
	}
}

// A state that is not one the session could have said is refused, naming
// it, before anything runs.
func TestMalformedResumeIsRefused(t *testing.T) {
	for _, c := range []struct {
		state string
		d     Driver
		want  string
	}{
		{"abc", &remembering{}, "not {\"turn\":N"},
		{`{"turn":0,"driver":{"id":"a"}}`, &remembering{}, "turn 0"},
		{`{"turn":-2}`, &remembering{}, "turn -2"},
		{`{"turn":2,"driver":{"id":"a"},"more":1}`, &remembering{}, "unknown field"},
		{`{"turn":2,"driver":{"id":"a"}} {}`, &remembering{}, "data after"},
		{`{"turn":2,"driver":{"id":"--last"}}`, &remembering{}, `id "--last"`},
		{`{"turn":2,"driver":{"id":"a","x":1}}`, &remembering{}, "unknown field"},
		{`{"turn":2}`, wrapped{}, "cannot be resumed"},
	} {
		ev := newEvents()
		s, err := NewSession(sdk.StartRequest{Dir: t.TempDir(), InitialPrompt: "go", Resume: c.state}, ev, c.d)
		var p *sdk.Problem
		if s != nil || !errors.As(err, &p) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "resume state") {
			t.Errorf("state %s: session %v, error %v; want a problem with %q", c.state, s, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.state) {
			t.Errorf("the error does not name the state %s: %v", c.state, err)
		}
		if r, ok := c.d.(*remembering); ok && len(r.seenTurns()) != 0 {
			t.Errorf("state %s: a turn ran", c.state)
		}
		if got := ev.list(); len(got) != 0 {
			t.Errorf("state %s: events %q", c.state, got)
		}
	}
}

// A turn stopped for the next prompt, or by the session's end, does not
// say the session can be resumed; the turn that follows it does.
func TestNoResumableForAStoppedTurn(t *testing.T) {
	d, ev := &remembering{}, newEvents()
	s, err := NewSession(sdk.StartRequest{Dir: t.TempDir(), InitialPrompt: "slow"}, ev, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Prompt(context.Background(), "next", true); err != nil {
		t.Fatal(err)
	}
	waitTurn(t, s)
	if err := s.Prompt(context.Background(), "slow", false); err != nil {
		t.Fatal(err)
	}
	s.Terminate(context.Background())
	want := []string{"started", "ended", "started", "ended", `resumable {"turn":2,"driver":{"id":"id-2"}}`, "started", "ended", "exited"}
	if got := ev.list(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A driver that is not a Resumer never says its session can be resumed.
func TestOnlyResumersAreResumable(t *testing.T) {
	ev := newEvents()
	s, err := NewSession(sdk.StartRequest{Dir: t.TempDir(), InitialPrompt: "x"}, ev, echoing{})
	if err != nil {
		t.Fatal(err)
	}
	waitTurn(t, s)
	s.Terminate(context.Background())
	if got := ev.list(); strings.Join(got, " ") != "started ended exited" {
		t.Fatalf("events %q", got)
	}
}

type echoing struct{}

func (echoing) Command(*Turn) (Call, error) { return Call{Name: "echo", Args: []string{"hi"}}, nil }
func (echoing) Line(*Turn, []byte)          {}
