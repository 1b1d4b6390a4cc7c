package daemon

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestParseStatOfThisProcess(t *testing.T) {
	st, err := procStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	pgrp := syscall.Getpgrp()
	if st.pgrp != pgrp || st.start == 0 || st.state < 'A' || st.state > 'Z' || st.state == 'Z' {
		t.Fatalf("%+v, pgrp %d", st, pgrp)
	}
}

func TestParseStatNameWithParentheses(t *testing.T) {
	line := "4242 (evil) 1 2 3 (x) R 1 777 777 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 98765 1000 10 18446744073709551615\n"
	st, err := parseStat([]byte(line))
	if err != nil || st.pgrp != 777 || st.start != 98765 || st.state != 'R' {
		t.Fatalf("%+v %v", st, err)
	}
}

// FuzzProcStat: a process names itself; whatever it chose, parsing its
// stat line never panics.
func FuzzProcStat(f *testing.F) {
	f.Add([]byte("1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 5 1000 10 0\n"))
	f.Add([]byte("2 ()) Z"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseStat(b)
	})
}

// A group whose leader is gone is still found by its members; a record
// whose start time does not match the live leader kills nothing.
func TestGroupReap(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	fmt.Fscan(out, &child)
	defer syscall.Kill(child, syscall.SIGKILL)
	g, err := newGroup(cmd.Process.Pid, "")
	if err != nil {
		t.Fatal(err)
	}
	wrong := *g
	wrong.Start++
	if wrong.reap() {
		t.Fatal("a group with another leader's start time was reaped")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if m := g.members(); len(m) != 1 || m[0] != child {
		t.Fatalf("members %v, want [%d]", m, child)
	}
	if !g.reap() {
		t.Fatal("nothing reaped")
	}
	for i := 0; i < 100; i++ {
		if st, err := procStat(child); err != nil || st.state == 'Z' {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("child %d survived", child)
}
