package daemon

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/agentproto/agentproto/internal/procfs"
	"github.com/agentproto/agentproto/sessions"
)

// group is a recorded process group (sessions.Group) with what the
// reaper and the guard do to it.
type group struct{ sessions.Group }

// newGroup describes the group led by pid, just launched.
func newGroup(pid int, sockets string) (*group, error) {
	st, err := procStat(pid)
	if err != nil {
		return nil, err
	}
	return &group{sessions.Group{Pgid: pid, Start: st.start, Boot: sessions.BootID(), Sockets: sockets}}, nil
}

func (s store) saveGroup(id string, g *group) error {
	b, _ := json.Marshal(g)
	tmp := s.GroupPath(id) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.GroupPath(id))
}

// procInfo is what /proc/PID/stat says of a process.
type procInfo struct {
	ppid  int
	pgrp  int
	start uint64
	state byte
	cpu   uint64 // user and system time, clock ticks
}

func procStat(pid int) (procInfo, error) {
	st, err := procfs.ReadStat(pid)
	return fromStat(st), err
}

// parseStat reads a /proc/PID/stat line (procfs.ParseStat).
func parseStat(b []byte) (procInfo, error) {
	st, err := procfs.ParseStat(b)
	return fromStat(st), err
}

func fromStat(st procfs.Stat) procInfo {
	return procInfo{ppid: st.PPid, pgrp: st.Pgrp, start: st.Start, state: st.State, cpu: st.CPU}
}

// members lists the live (not zombie) processes of the recorded group.
// The leader, when alive, must be the very process recorded; when it is
// gone, its group id cannot have been handed out again while other
// processes still carry it, so those are the group's, provided they were
// started after the leader.
func (g *group) members() []int {
	if g.Boot != sessions.BootID() {
		return nil
	}
	if st, err := procStat(g.Pgid); err == nil && st.start != g.Start {
		return nil // the pid now belongs to another process
	}
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procStat(pid)
		if err != nil || st.pgrp != g.Pgid || st.state == 'Z' || st.start < g.Start {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// reap kills what is left of the group and removes its socket directory.
// It reports whether processes were found.
func (g *group) reap() bool {
	left := g.members()
	if len(left) > 0 {
		syscall.Kill(-g.Pgid, syscall.SIGKILL)
	}
	for _, d := range []string{g.Sockets, g.Tmp} {
		if d != "" {
			os.RemoveAll(d)
		}
	}
	return len(left) > 0
}

// reapGroups kills every group a previous daemon recorded and forgets
// them. It runs under the daemon lock, before anything is launched.
func (d *Daemon) reapGroups() {
	entries, err := os.ReadDir(d.store.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.logf("reaper: %v", err)
	}
	for _, e := range entries {
		if sessions.ValidateID(e.Name()) != nil {
			continue
		}
		path := d.store.GroupPath(e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var g group
		if err := json.Unmarshal(b, &g); err != nil || g.Pgid <= 1 {
			d.logf("reaper: %s: unreadable group record, removed", path)
			os.Remove(path)
			continue
		}
		if g.reap() {
			d.logf("reaper: killed process group %d left by session %s", g.Pgid, e.Name())
		}
		os.Remove(path)
	}
	// Sockets of plugins killed without their daemon.
	removePluginSockets(d.repo.CommonDir)
}
