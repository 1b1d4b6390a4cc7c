package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sessions"
)

var allStates = []string{sessions.StateLaunched, sessions.StateRunning, sessions.StateSettled, sessions.StateExited, sessions.StateFailed, sessions.StateCleaned}

func TestTransitionTable(t *testing.T) {
	allowed := map[[2]string]bool{}
	for _, from := range []string{sessions.StateLaunched, sessions.StateRunning, sessions.StateSettled} {
		for _, to := range []string{sessions.StateRunning, sessions.StateSettled, sessions.StateExited, sessions.StateFailed, sessions.StateCleaned} {
			allowed[[2]string{from, to}] = true
		}
	}
	allowed[[2]string{sessions.StateLaunched, sessions.StateLaunched}] = true
	allowed[[2]string{sessions.StateExited, sessions.StateCleaned}] = true
	allowed[[2]string{sessions.StateFailed, sessions.StateCleaned}] = true
	for _, from := range allStates {
		for _, to := range append(allStates, "orphaned", "") {
			if got, want := canMove(from, to), allowed[[2]string{from, to}]; got != want {
				t.Errorf("canMove(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
	// Every state of the machine is named in its table, and only the
	// terminal ones end in cleaned or nothing.
	for _, s := range allStates {
		if _, ok := transitions[s]; !ok {
			t.Errorf("state %s has no row", s)
		}
		if sessions.Terminal(s) != !canMove(s, sessions.StateRunning) {
			t.Errorf("state %s: terminal %v, but may run again: %v", s, sessions.Terminal(s), canMove(s, sessions.StateRunning))
		}
	}
}

func TestMoveCountsAndRefuses(t *testing.T) {
	r := &sessions.Record{State: sessions.StateLaunched}
	for _, to := range []string{sessions.StateLaunched, sessions.StateRunning, sessions.StateSettled, sessions.StateRunning, sessions.StateSettled, sessions.StateExited} {
		if !move(r, to, "") {
			t.Fatalf("move to %s from %s refused", to, r.State)
		}
	}
	if r.Transitions != 6 || r.State != sessions.StateExited || r.Failure != "" {
		t.Fatalf("after six moves: %+v", r)
	}
	if move(r, sessions.StateFailed, "late crash") || r.State != sessions.StateExited || r.Transitions != 6 || r.Failure != "" {
		t.Fatalf("an exited session was failed after the fact: %+v", r)
	}
	if !move(r, sessions.StateCleaned, "killed") || r.Failure != "killed" || r.Transitions != 7 {
		t.Fatalf("kill of an exited session: %+v", r)
	}
	if move(r, sessions.StateCleaned, "again") || r.Transitions != 7 || r.Failure != "killed" {
		t.Fatalf("cleaned twice: %+v", r)
	}
}

// replay feeds events to a fresh record as the daemon does and returns the
// record, the states it moved to and the notes written to the log.
func replay(t *testing.T, tail string, events ...*host.Event) (*sessions.Record, []string, []string) {
	t.Helper()
	r := &sessions.Record{State: sessions.StateLaunched}
	move(r, sessions.StateLaunched, "")
	var tr turn
	var states, notes []string
	now := time.Unix(1700000000, 0)
	for i, e := range events {
		e.Seq = uint64(i + 1)
		eff := apply(r, &tr, e, now.Add(time.Duration(i)*time.Second), func() string { return tail })
		if eff.note != "" {
			notes = append(notes, eff.note)
		}
		if eff.to != "" && move(r, eff.to, "") {
			states = append(states, eff.to)
		}
		if eff.end != (e.Kind == host.Exited) {
			t.Fatalf("event %v: end = %v", e.Kind, eff.end)
		}
	}
	if n := len(events); n > 0 && (r.LastSeq != uint64(n) || !r.LastActivity.Equal(now.Add(time.Duration(n-1)*time.Second))) {
		t.Fatalf("last seq %d, last activity %v", r.LastSeq, r.LastActivity)
	}
	return r, states, notes
}

func out(s string) *host.Event           { return &host.Event{Kind: host.Output, Data: []byte(s)} }
func started() *host.Event               { return &host.Event{Kind: host.TurnStarted} }
func ended() *host.Event                 { return &host.Event{Kind: host.TurnEnded} }
func failure(f, text string) *host.Event { return &host.Event{Kind: host.Error, Fault: f, Text: text} }

func TestTurnsAndOutput(t *testing.T) {
	r, states, notes := replay(t, "", started(), out("hello "), out("world\n"), ended(), started(), out("x"), ended(),
		&host.Event{Kind: host.Exited, ExitCode: 3})
	want := []string{sessions.StateRunning, sessions.StateSettled, sessions.StateRunning, sessions.StateSettled, sessions.StateExited}
	if strings.Join(states, ",") != strings.Join(want, ",") {
		t.Errorf("states %v, want %v", states, want)
	}
	if r.Turns != 2 || r.OutputBytes != 13 || len(r.Warnings) != 0 || len(r.Faults) != 0 || len(notes) != 0 {
		t.Errorf("record %+v, notes %q", r, notes)
	}
	if r.ExitCode == nil || *r.ExitCode != 3 {
		t.Errorf("exit code %v", r.ExitCode)
	}
}

// A turn that ends with nothing said is the sign of a dead provider: it
// is a warning with the adapter's stderr and an empty_turn fault, and the
// ledger event says so.
func TestEmptyTurnIsAFault(t *testing.T) {
	r := &sessions.Record{State: sessions.StateRunning, Turns: 1}
	tr := turn{}
	eff := apply(r, &tr, ended(), time.Now(), func() string { return "401 from provider" })
	if eff.to != sessions.StateSettled || eff.extra == nil || eff.extra.Warning != "empty_turn" {
		t.Fatalf("effect %+v", eff)
	}
	if len(r.Faults) != 1 || r.Faults[0] != sdk.FaultEmptyTurn || len(r.Warnings) != 1 ||
		!strings.Contains(r.Warnings[0], "turn 1 ended with no output") || !strings.Contains(r.Warnings[0], "401 from provider") {
		t.Fatalf("record %+v", r)
	}
	// The next turn starts clean: output in it makes it no fault.
	r2, _, _ := replay(t, "", started(), ended(), started(), out("ok"), ended())
	if len(r2.Faults) != 1 || r2.Turns != 2 {
		t.Fatalf("second turn with output was counted empty: %+v", r2)
	}
}

// A turn whose end the adapter explained (a typed fault, an interrupt) is
// not also an empty turn; other warnings do not explain it.
func TestToldTurnsAreNotEmpty(t *testing.T) {
	cases := []struct {
		name   string
		ev     *host.Event
		faults []string
		note   string
	}{
		{"fault", failure(sdk.FaultAuthFailed, "bad key"), []string{sdk.FaultAuthFailed}, "[agentproto] error: bad key"},
		{"interrupt", failure(sdk.WarnInterrupted, "stopped"), nil, "[agentproto] warning: interrupted: stopped"},
		{"retrying", failure(sdk.WarnRetrying, "again"), []string{sdk.FaultEmptyTurn}, "[agentproto] warning: retrying: again"},
		{"untyped error", failure("", "odd"), []string{sdk.FaultEmptyTurn}, "[agentproto] error: odd"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, states, notes := replay(t, "", started(), c.ev, ended())
			if strings.Join(r.Faults, ",") != strings.Join(c.faults, ",") {
				t.Errorf("faults %v, want %v", r.Faults, c.faults)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], c.note) {
				t.Errorf("notes %q, want %q", notes, c.note)
			}
			if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], c.ev.Text) {
				t.Errorf("warnings %q", r.Warnings)
			}
			if strings.Join(states, ",") != "running,settled" {
				t.Errorf("states %v", states)
			}
		})
	}
}

// The turn that answers the prompt sent with an interrupt may end empty by
// the agent's doing (claude-agent-acp does): a warning saying so, no
// empty_turn fault, so no fallback. Only that turn: an empty turn after it
// is a dead provider's sign again.
func TestEmptyTurnAfterAnInterruptIsNoFault(t *testing.T) {
	r, states, _ := replay(t, "", started(), out("slow "), failure(sdk.WarnInterrupted, "stopped"), ended(), started(), ended())
	if len(r.Faults) != 0 || len(r.Warnings) != 2 || !strings.HasPrefix(r.Warnings[1], sdk.WarnEmptyAfterInterrupt+": turn 2 ended with no output right after the interrupt of turn 1") {
		t.Fatalf("record %+v", r)
	}
	if strings.Join(states, ",") != "running,settled,running,settled" {
		t.Errorf("states %v", states)
	}
	r, _, _ = replay(t, "", started(), failure(sdk.WarnInterrupted, "stopped"), ended(), started(), ended(), started(), ended())
	if len(r.Faults) != 1 || r.Faults[0] != sdk.FaultEmptyTurn {
		t.Fatalf("the second empty turn after the interrupt: %+v", r)
	}
}

// Events after the agent exited change the record but move nothing: the
// session is over.
func TestNothingMovesAfterExit(t *testing.T) {
	r, states, _ := replay(t, "", started(), &host.Event{Kind: host.Exited}, started(), ended())
	if strings.Join(states, ",") != "running,exited" || r.State != sessions.StateExited {
		t.Fatalf("states %v, record %+v", states, r)
	}
}

// An event kind the host does not know changes nothing but the sequence.
func TestUnknownKindIsIgnored(t *testing.T) {
	r, states, notes := replay(t, "", &host.Event{Kind: 0, Data: []byte("x")})
	if len(states) != 0 || len(notes) != 0 || r.OutputBytes != 0 || r.Turns != 0 {
		t.Fatalf("record %+v states %v notes %v", r, states, notes)
	}
}

// Whatever an adapter sends, in whatever order, the record stays coherent:
// the state moves only along the table, output and turns are counted,
// and nothing moves once the session is cleaned. Each input byte is one
// event: its low 3 bits the kind, the rest its size or fault.
func FuzzApplyEvents(f *testing.F) {
	f.Add([]byte{2, 1, 9, 3, 2, 3, 5})
	f.Add([]byte{3, 3, 4, 12, 5, 2})
	f.Add([]byte{0, 7, 6, 255})
	faults := []string{"", sdk.FaultAuthFailed, sdk.WarnInterrupted, sdk.WarnRetrying}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := &sessions.Record{State: sessions.StateLaunched}
		move(r, sessions.StateLaunched, "")
		var tr turn
		var wantOut int64
		wantTurns := 0
		for i, b := range in {
			e := &host.Event{Seq: uint64(i + 1), Kind: host.EventKind(b & 7)}
			switch e.Kind {
			case host.Output:
				e.Data = make([]byte, b>>3)
				wantOut += int64(len(e.Data))
			case host.TurnStarted:
				wantTurns++
			case host.Error:
				e.Fault, e.Text = faults[int(b>>3)%len(faults)], "x"
			}
			from := r.State
			eff := apply(r, &tr, e, time.Now(), func() string { return "" })
			if eff.to != "" && move(r, eff.to, "") && !canMove(from, eff.to) {
				t.Fatalf("moved %s -> %s against the table", from, eff.to)
			}
			if r.State != from && eff.to != r.State {
				t.Fatalf("state changed %s -> %s without a transition", from, r.State)
			}
			if tr.output < 0 || tr.output > r.OutputBytes {
				t.Fatalf("turn output %d of %d", tr.output, r.OutputBytes)
			}
		}
		if r.OutputBytes != wantOut || r.Turns != wantTurns {
			t.Fatalf("output %d turns %d, want %d %d", r.OutputBytes, r.Turns, wantOut, wantTurns)
		}
		if !move(r, sessions.StateCleaned, "") {
			t.Fatalf("a session in %s cannot be cleaned", r.State)
		}
		if move(r, sessions.StateRunning, "") {
			t.Fatalf("a cleaned session ran again")
		}
	})
}
