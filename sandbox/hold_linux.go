package sandbox

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentproto/agentproto/internal/procfs"
)

// killBound is how long the holder keeps killing what is left of its
// tree: orphans of killed processes arrive as its children one by one.
const killBound = 2 * time.Second

// hold runs argv confined, as this process's child, and holds the tree:
// this process becomes the child subreaper of everything below it, so a
// process that double-forks or calls setsid is re-parented here, not to
// init. When the child ends, or this process is told to stop (SIGTERM,
// SIGINT, SIGHUP — the daemon's death arrives as SIGTERM), every process
// left below is killed. The holder stays outside the confinement, so
// the tree cannot signal it.
func hold(encoded string, argv []string) int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail("sandbox: becoming the subreaper of the session: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail("sandbox: %v", err)
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	child, err := os.StartProcess(self, append([]string{self, confineFlag, encoded, "--"}, argv...), &os.ProcAttr{
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		// The confined tree dies with its holder, whatever kills it.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return fail("sandbox: starting %s: %v", argv[0], err)
	}
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			killTree(sigs)
			return 128 + int(sig.(syscall.Signal))
		}
		if ws, done := reap(child.Pid); done {
			killTree(sigs)
			return exitCode(ws)
		}
	}
	return 1
}

// reap collects every child that has ended; done says whether main was
// one of them, with its status.
func reap(main int) (unix.WaitStatus, bool) {
	var mainWS unix.WaitStatus
	done := false
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return mainWS, done
		}
		if pid == main {
			mainWS, done = ws, true
		}
	}
}

// killTree kills every process below this one until none is left, or
// the bound runs out. Between rounds it waits for a child to end (sigs
// carries SIGCHLD), at most 2 ms: a killed process is gone a moment later.
func killTree(sigs <-chan os.Signal) {
	deadline := time.Now().Add(killBound)
	pause := time.NewTimer(0)
	defer pause.Stop()
	for time.Now().Before(deadline) {
		left := procfs.Descendants(os.Getpid())
		if len(left) == 0 {
			reap(0)
			return
		}
		for _, pid := range left {
			unix.Kill(pid, unix.SIGKILL)
		}
		reap(0)
		pause.Reset(2 * time.Millisecond)
		select {
		case <-sigs:
		case <-pause.C:
		}
	}
}

func exitCode(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
