// Package procfs reads what Linux's /proc says of a process: enough to
// walk a process tree and tell a process from a later one with its pid.
package procfs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Stat is what /proc/PID/stat says of a process.
type Stat struct {
	PPid  int
	Pgrp  int
	Start uint64 // clock ticks after boot
	State byte   // 'R', 'S', 'Z'...
	CPU   uint64 // user and system time, clock ticks
}

// ReadStat reads /proc/PID/stat.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	st, err := ParseStat(b)
	if err != nil {
		return Stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return st, nil
}

// ParseStat reads a /proc/PID/stat line. The command name is in
// parentheses and is whatever the process chose, spaces and parentheses
// included: fields count from the last ')'.
func ParseStat(b []byte) (Stat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, errors.New("no command name")
	}
	f := strings.Fields(string(b[i+1:]))
	// state is field 3, ppid field 4, pgrp field 5, utime and stime fields 14 and 15,
	// starttime field 22 (of the whole line).
	if len(f) < 20 || len(f[0]) != 1 {
		return Stat{}, errors.New("too few fields")
	}
	ppid, err0 := strconv.Atoi(f[1])
	pgrp, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	utime, err3 := strconv.ParseUint(f[11], 10, 64)
	stime, err4 := strconv.ParseUint(f[12], 10, 64)
	if err0 != nil || err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return Stat{}, errors.New("bad fields")
	}
	return Stat{PPid: ppid, Pgrp: pgrp, Start: start, State: f[0][0], CPU: utime + stime}, nil
}

// All reads the stat of every process this one can see, by pid.
func All() map[int]Stat {
	entries, _ := os.ReadDir("/proc")
	out := make(map[int]Stat, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := ReadStat(pid); err == nil {
			out[pid] = st
		}
	}
	return out
}

// Descendants lists the live (not zombie) processes below root. It
// follows the kernel's children lists (children.go) where the kernel has
// them, else every process's parent link.
func Descendants(root int) []int {
	if out, ok := descendantsByChildren(root); ok {
		return out
	}
	return descendantsByScan(root)
}

// descendantsByScan finds the processes below root by reading the parent
// link of every process on the machine.
func descendantsByScan(root int) []int {
	all := All()
	children := map[int][]int{}
	for pid, st := range all {
		children[st.PPid] = append(children[st.PPid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if all[c].State != 'Z' {
				out = append(out, c)
			}
			queue = append(queue, c)
		}
	}
	return out
}
