package daemon

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// A session is wedged when the daemon's state of it and what its agent is
// seen doing disagree for longer than the session's wedge_after. The daemon
// cannot look inside an agent; from outside it sees three things, each
// cheap and each independent of what the adapter chooses to report:
//
//   - the adapter's events (their sequence number moves);
//   - the agent's own log, the profile's error_log (which may be the
//     session's events file): its size moves. A log that several sessions
//     of one agent share moves for all of them; a log of the session's
//     own is the better witness;
//   - the CPU time of the plugin's process group (adapter, agent CLI and
//     what they started, all in one group), from /proc/PID/stat. Below 1%
//     of one core over a check it is not counted: an idle CLI and its
//     plugin wake for timers, a working one does not stay that low.
//
// Two disagreements, one fault:
//
//   - working (WedgeWorking): the session is settled, so the daemon and
//     every policy and wait take it as awaiting input, yet wedge_after
//     after its turn ended something still moved since the last check.
//     This is the dangerous one: a pipeline that verifies a "finished"
//     worktree while the agent still writes in it. Activity right after
//     the turn end (a log flushed, a child reaped) is no sign: only what
//     moves a whole wedge_after later counts.
//   - stalled (WedgeStalled): the session is running, yet nothing moved
//     for wedge_after: no event, no log line, no CPU — an agent waiting
//     for an answer that will not come (a provider that hangs, a prompt
//     of its own that nobody sees).
//
// A session is called wedged once per turn and state; the call records
// the wedged fault and a warning in the session's record, and the ledger
// gets a session_wedged event with the cause the agent's error log names
// (read as after an empty turn, errlog.go) or "unknown". The daemon does
// not end the session: what to do with it is the caller's.
const (
	WedgeWorking = "working_after_turn_end"
	WedgeStalled = "stalled_mid_turn"
	// FaultWedged is the fault a wedged session's record holds, beside the
	// cause its error log names.
	FaultWedged = "wedged"
)

// Bounds of the check interval: a quarter of wedge_after, so the call
// comes at most a quarter late.
const (
	minWedgeCheck = 50 * time.Millisecond
	maxWedgeCheck = 30 * time.Second
)

func wedgeCheck(after time.Duration) time.Duration {
	return min(max(after/4, minWedgeCheck), maxWedgeCheck)
}

// clockTick is the unit of /proc/PID/stat times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// sample is what the daemon sees of a session's agent at one time.
type sample struct {
	at      time.Time
	seq     uint64           // last adapter event
	logSize int64            // the agent's log, -1 when there is none
	cpu     map[int]cpuTicks // by pid, the live members of the group
}

// cpuTicks tells apart a process and its successor under a reused pid.
type cpuTicks struct{ start, ticks uint64 }

// moved lists what changed from prev to s: output (an adapter event),
// error_log, cpu.
func moved(prev, s sample) []string {
	var ev []string
	if s.seq != prev.seq {
		ev = append(ev, "output")
	}
	if s.logSize != prev.logSize {
		ev = append(ev, "error_log")
	}
	var ticks uint64
	for pid, c := range s.cpu {
		p, ok := prev.cpu[pid]
		switch {
		case ok && p.start == c.start && c.ticks >= p.ticks:
			ticks += c.ticks - p.ticks
		case !ok || p.start != c.start:
			ticks += c.ticks // started since: all of its time is new
		}
	}
	if window := s.at.Sub(prev.at); window > 0 && time.Duration(ticks)*clockTick*100 > window {
		ev = append(ev, "cpu")
	}
	return ev
}

// wedgeWatch follows one session from check to check.
type wedgeWatch struct {
	after time.Duration
	key   string    // the state and turn being watched
	since time.Time // settled: the turn's end; running: the last move
	prev  sample
	told  bool // this state and turn was already called wedged
}

// wedge is one call: the symptom, what moved, and for how long.
type wedge struct {
	symptom  string
	evidence []string
	lasted   time.Duration
}

// step folds one check of a session in state at turn; it returns the
// wedge found now, or nil.
func (w *wedgeWatch) step(state string, turn int, s sample) *wedge {
	key := state + "/" + strconv.Itoa(turn)
	if key != w.key {
		w.key, w.since, w.prev, w.told = key, s.at, s, false
		return nil
	}
	ev := moved(w.prev, s)
	w.prev = s
	if w.told {
		return nil
	}
	lasted := s.at.Sub(w.since)
	switch state {
	case sessions.StateSettled:
		if len(ev) > 0 && lasted >= w.after {
			w.told = true
			return &wedge{symptom: WedgeWorking, evidence: ev, lasted: lasted}
		}
	case sessions.StateRunning:
		if len(ev) > 0 {
			w.since = s.at
			return nil
		}
		if lasted >= w.after {
			w.told = true
			return &wedge{symptom: WedgeStalled, lasted: lasted}
		}
	}
	return nil
}

// watchWedge checks a session until it ends; after is its wedge_after
// (0: never), logPath its agent's log ("" for none).
func (d *Daemon) watchWedge(l *live, after time.Duration, logPath string) {
	if after <= 0 {
		return
	}
	pgid := l.cli().Pid()
	leader, err := procStat(pgid)
	if err != nil {
		return // the plugin is already gone
	}
	w := &wedgeWatch{after: after}
	tick := time.NewTicker(wedgeCheck(after))
	defer tick.Stop()
	for range tick.C {
		d.mu.Lock()
		state, turn, seq, spawning := l.rec.State, l.rec.Turns, l.rec.LastSeq, d.pinging[l.rec.ID]
		d.mu.Unlock()
		if sessions.Terminal(state) {
			return
		}
		if spawning {
			// The spawn protocol has its own bounds and its own diagnosis.
			state = "spawning"
		}
		if p := l.cli().Pid(); p != pgid {
			// A released session's next prompt started a new process.
			if st, err := procStat(p); err == nil {
				pgid, leader = p, st
			}
		}
		s := sample{at: time.Now(), seq: seq, logSize: fileSize(logPath), cpu: groupCPU(pgid, leader.start)}
		if found := w.step(state, turn, s); found != nil {
			d.wedged(l, state, found)
		}
	}
}

// wedged records a wedged session: the cause from its agent's error log,
// the fault and a warning in its record, a session_wedged event.
func (d *Daemon) wedged(l *live, state string, w *wedge) {
	cause, ref := d.readErrorLog(l)
	if cause == "" {
		cause = "unknown"
	}
	after := w.lasted.Round(time.Second)
	if after == 0 {
		after = w.lasted.Round(time.Millisecond)
	}
	ev := Wedged{sessionRef: d.ref(l), State: state, Symptom: w.symptom, Evidence: w.evidence, After: after.String(), Cause: cause, ErrorLogRef: ref}
	var text string
	if w.symptom == WedgeWorking {
		text = fmt.Sprintf("wedged: turn %d ended %s ago and the session awaits input, but its agent is still working (%s moved)",
			ev.Turn, ev.After, strings.Join(w.evidence, ", "))
	} else {
		text = fmt.Sprintf("wedged: turn %d is running but nothing moved for %s (no event, no log line, no CPU)", ev.Turn, ev.After)
	}
	text += "; cause: " + cause
	if ref != "" {
		text += " (the agent's error log, kept in " + ref + ")"
	}
	d.mu.Lock()
	l.rec.Faults = append(l.rec.Faults, FaultWedged)
	l.rec.Warnings = append(l.rec.Warnings, text)
	snap := *l.rec
	d.store.Save(&snap)
	d.changed.Broadcast()
	d.mu.Unlock()
	d.logf("session %s: %s", l.rec.ID, text)
	record(d, wedgedKind, eventID(ev.sessionRef, KindWedged, w.symptom), ev)
}

func fileSize(path string) int64 {
	if path == "" {
		return -1
	}
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// groupCPU reads the CPU time of each live process of the group led (or
// once led) by pgid. Only processes started after the leader are its: a
// group id is not handed out again while a member carries it.
func groupCPU(pgid int, leaderStart uint64) map[int]cpuTicks {
	entries, _ := os.ReadDir("/proc")
	out := map[int]cpuTicks{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procStat(pid)
		if err != nil || st.pgrp != pgid || st.state == 'Z' || st.start < leaderStart {
			continue
		}
		out[pid] = cpuTicks{start: st.start, ticks: st.cpu}
	}
	return out
}
