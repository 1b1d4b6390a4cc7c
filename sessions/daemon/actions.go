package daemon

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// actionRuns tracks the policy firings in flight and the commands their
// actions run, so that a daemon that stops ends them and waits for them:
// one left behind would go on writing into the repository after the
// daemon is gone (a verify recording its event), or start a new daemon
// (a dispatch launching the next wave).
type actionRuns struct {
	mu       sync.Mutex
	procs    map[*os.Process]bool
	firing   sync.WaitGroup
	stopping bool
}

// errStopping refuses an action once the daemon is stopping.
var errStopping = errors.New("the sessions daemon is stopping")

// goFire runs fn, one policy firing, in its own goroutine unless the
// daemon is stopping.
func (a *actionRuns) goFire(fn func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopping {
		return
	}
	a.firing.Add(1)
	go func() {
		defer a.firing.Done()
		fn()
	}()
}

// output runs cmd as CombinedOutput does, known to stop while it runs.
func (a *actionRuns) output(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	a.mu.Lock()
	if a.stopping {
		a.mu.Unlock()
		return nil, errStopping
	}
	if err := cmd.Start(); err != nil {
		a.mu.Unlock()
		return nil, err
	}
	if a.procs == nil {
		a.procs = map[*os.Process]bool{}
	}
	a.procs[cmd.Process] = true
	a.mu.Unlock()
	err := cmd.Wait()
	a.mu.Lock()
	delete(a.procs, cmd.Process)
	a.mu.Unlock()
	return out.Bytes(), err
}

// stop refuses new firings, asks every running action command to end
// (SIGTERM, then SIGKILL after grace) and waits for the firings in flight,
// at most grace plus a second for them to record what happened.
func (a *actionRuns) stop(grace time.Duration) {
	a.mu.Lock()
	a.stopping = true
	for p := range a.procs {
		p.Signal(syscall.SIGTERM)
	}
	a.mu.Unlock()
	done := make(chan struct{})
	go func() { a.firing.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	a.mu.Lock()
	for p := range a.procs {
		p.Kill()
	}
	a.mu.Unlock()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}
