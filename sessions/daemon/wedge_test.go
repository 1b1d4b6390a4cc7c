package daemon

import (
	"fmt"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// at builds a sample t after t0.
func at(t0 time.Time, t time.Duration, seq uint64, logSize int64, ticks uint64) sample {
	return sample{at: t0.Add(t), seq: seq, logSize: logSize, cpu: map[int]cpuTicks{7: {start: 1, ticks: ticks}}}
}

// A settled session is called wedged only for what moves a whole
// wedge_after after its turn ended, once; a running one when nothing
// moved for wedge_after.
func TestWedgeWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	const after = 4 * time.Second
	type check struct {
		state string
		turn  int
		s     sample
		want  string // symptom, "" for none
	}
	for _, c := range []struct {
		name   string
		checks []check
	}{
		{"a settled agent that keeps writing its log", []check{
			{sessions.StateSettled, 1, at(t0, 0, 5, 100, 0), ""},
			{sessions.StateSettled, 1, at(t0, time.Second, 5, 200, 0), ""}, // right after the turn end: no sign
			{sessions.StateSettled, 1, at(t0, 4*time.Second, 5, 300, 0), WedgeWorking},
			{sessions.StateSettled, 1, at(t0, 5*time.Second, 5, 400, 0), ""}, // told once
		}},
		{"a settled agent that went quiet", []check{
			{sessions.StateSettled, 1, at(t0, 0, 5, 100, 0), ""},
			{sessions.StateSettled, 1, at(t0, time.Second, 5, 200, 0), ""},
			{sessions.StateSettled, 1, at(t0, 5*time.Second, 5, 200, 0), ""},
			{sessions.StateSettled, 1, at(t0, 9*time.Second, 5, 200, 0), ""},
		}},
		{"a settled agent that burns CPU", []check{
			{sessions.StateSettled, 1, at(t0, 0, 5, -1, 0), ""},
			{sessions.StateSettled, 1, at(t0, 4*time.Second, 5, -1, 1), ""}, // 10ms over 4s: idle
			{sessions.StateSettled, 1, at(t0, 8*time.Second, 5, -1, 200), WedgeWorking},
		}},
		{"a settled adapter that still sends output", []check{
			{sessions.StateSettled, 1, at(t0, 0, 5, -1, 0), ""},
			{sessions.StateSettled, 1, at(t0, 5*time.Second, 9, -1, 0), WedgeWorking},
		}},
		{"a new turn starts the watch again", []check{
			{sessions.StateSettled, 1, at(t0, 0, 5, 100, 0), ""},
			{sessions.StateRunning, 2, at(t0, 3*time.Second, 6, 100, 0), ""},
			{sessions.StateSettled, 2, at(t0, 5*time.Second, 7, 200, 0), ""},
			{sessions.StateSettled, 2, at(t0, 6*time.Second, 7, 300, 0), ""},
			{sessions.StateSettled, 2, at(t0, 9*time.Second, 7, 400, 0), WedgeWorking},
		}},
		{"a running agent that stalls", []check{
			{sessions.StateRunning, 1, at(t0, 0, 5, 100, 0), ""},
			{sessions.StateRunning, 1, at(t0, 2*time.Second, 6, 100, 0), ""}, // an event: the clock restarts
			{sessions.StateRunning, 1, at(t0, 5*time.Second, 6, 100, 0), ""},
			{sessions.StateRunning, 1, at(t0, 6*time.Second, 6, 100, 0), WedgeStalled},
			{sessions.StateRunning, 1, at(t0, 9*time.Second, 6, 100, 0), ""},
		}},
		{"a running agent that thinks", []check{
			{sessions.StateRunning, 1, at(t0, 0, 5, -1, 0), ""},
			{sessions.StateRunning, 1, at(t0, 3*time.Second, 5, -1, 100), ""},
			{sessions.StateRunning, 1, at(t0, 6*time.Second, 5, -1, 200), ""},
			{sessions.StateRunning, 1, at(t0, 9*time.Second, 5, -1, 300), ""},
		}},
		{"the spawn protocol is left alone", []check{
			{"spawning", 1, at(t0, 0, 5, -1, 0), ""},
			{"spawning", 1, at(t0, 9*time.Second, 9, 50, 900), ""},
		}},
	} {
		w := &wedgeWatch{after: after}
		for i, ch := range c.checks {
			got := ""
			if found := w.step(ch.state, ch.turn, ch.s); found != nil {
				got = found.symptom
			}
			if got != ch.want {
				t.Errorf("%s: check %d: %q, want %q", c.name, i, got, ch.want)
			}
		}
	}
}

// What moved is named; a pid handed to a new process counts as new.
func TestMovedEvidence(t *testing.T) {
	t0 := time.Unix(1000, 0)
	prev := sample{at: t0, seq: 1, logSize: 10, cpu: map[int]cpuTicks{7: {1, 50}}}
	s := sample{at: t0.Add(time.Second), seq: 2, logSize: 0, cpu: map[int]cpuTicks{7: {9, 2}}}
	if ev := moved(prev, s); !slices.Equal(ev, []string{"output", "error_log", "cpu"}) {
		t.Fatalf("evidence %v", ev)
	}
	if ev := moved(prev, prev); ev != nil {
		t.Fatalf("nothing moved, yet %v", ev)
	}
}

// The CPU time of a process group is read from /proc, members only.
func TestGroupCPU(t *testing.T) {
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exec sleep 300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	leader, err := procStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var got map[int]cpuTicks
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = groupCPU(cmd.Process.Pid, leader.start); got[cmd.Process.Pid].ticks > 0 {
			break
		}
	}
	if len(got) != 1 || got[cmd.Process.Pid].ticks == 0 {
		t.Fatalf("group CPU %v", got)
	}
	if other := groupCPU(cmd.Process.Pid, leader.start+1_000_000); len(other) != 0 {
		t.Fatalf("processes older than the leader counted: %v", other)
	}
}

// FuzzProcStatCPU: whatever a process calls itself, its group, start time
// and CPU time are read from the fields after its name.
func FuzzProcStatCPU(f *testing.F) {
	f.Add("sh", uint64(12), uint64(3), 777, uint64(98765))
	f.Add("a) R 1 2 3 (b", uint64(0), uint64(1)<<40, 1, uint64(0))
	f.Fuzz(func(t *testing.T, comm string, utime, stime uint64, pgrp int, start uint64) {
		if pgrp < 0 || utime > 1<<62 || stime > 1<<62 {
			return
		}
		line := fmt.Sprintf("4242 (%s) S 1 %d %d 0 -1 4194560 1 0 0 0 %d %d 0 0 20 0 1 0 %d 1000 10 0\n", comm, pgrp, pgrp, utime, stime, start)
		st, err := parseStat([]byte(line))
		if err != nil || st.pgrp != pgrp || st.start != start || st.cpu != utime+stime || st.state != 'S' {
			t.Fatalf("%q: %+v %v", line, st, err)
		}
	})
}
