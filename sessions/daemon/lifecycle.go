package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/sessions"
)

// Run takes the daemon lock, reaps what a previous daemon left, listens on
// the socket and serves until idle or stopped; then it ends every session
// still alive.
func (d *Daemon) Run() error {
	lockPath := sessions.LockPath(d.repo.CommonDir)
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return ErrRunning
	}
	if _, err := sessions.EnsureRuntimeDir(); err != nil {
		return err
	}
	d.reapGroups()
	d.recoverOrphans()
	d.startGuard()
	tok, err := writeToken(d.repo.CommonDir)
	if err != nil {
		return fmt.Errorf("the sessions daemon's control token: %w", err)
	}
	d.token = tok
	sock := sessions.SocketPath(d.repo.CommonDir)
	os.Remove(sock) // a stale socket of a dead daemon; we hold the lock
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	d.ln = ln
	defer os.Remove(sock)
	d.logf("serving %s on %s (pid %d)", d.repo.CommonDir, sock, os.Getpid())
	go d.idleWatch()
	go d.idleLoop()
	d.stopOnSignal()
	for {
		conn, err := ln.Accept()
		if err == nil {
			go d.serveConn(conn)
			continue
		}
		if !errors.Is(err, net.ErrClosed) {
			return err
		}
		why := d.stopReason()
		if why == "" {
			why = fmt.Sprintf("the sessions daemon stopped after %v with nothing running", d.idleExit)
			d.logf("idle for %v; stopping", d.idleExit)
		} else {
			d.logf("%s; stopping", why)
		}
		d.shutdown(why)
		return nil
	}
}

// recoverOrphans marks sessions a previous daemon left unfinished as failed
// and kills their plugin process groups when they still run.
func (d *Daemon) recoverOrphans() {
	recs, _ := d.store.All()
	for _, r := range recs {
		if sessions.Terminal(r.State) {
			continue
		}
		if r.Pid > 0 && isAdapter(r.Pid) {
			syscall.Kill(-r.Pid, syscall.SIGKILL)
		}
		d.transition(r, sessions.StateFailed, sessions.FailureDaemonStopped, nil)
	}
}

// isAdapter checks that pid still is an adapter plugin before signalling it:
// pids are reused.
func isAdapter(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(b), host.BinaryPrefix)
}

// idleWatch closes the listener once nothing has happened for idleExit:
// no request in flight (observing ones aside, see serveConn), no turn in
// progress, no idle policy waiting on a live session, no pull request
// watched.
// Settled sessions do not keep the daemon alive; shutdown ends them.
func (d *Daemon) idleWatch() {
	for {
		time.Sleep(time.Second)
		// Read before the registry's lock: the two locks are never held
		// together. A policy attached meanwhile counts at the next check.
		watched, polling := d.policies.watched(), d.policies.prWatching()
		d.mu.Lock()
		if polling || d.busyLocked(watched) {
			d.lastBusy = time.Now()
		}
		idle := time.Since(d.lastBusy)
		d.mu.Unlock()
		if idle >= d.idleExit {
			d.ln.Close()
			return
		}
	}
}

// shutdown ends every session still alive (their agents would be orphans
// without the daemon) and records why.
func (d *Daemon) shutdown(why string) {
	d.mu.Lock()
	var ids []string
	for id, l := range d.sessions {
		if !sessions.Terminal(l.rec.State) {
			ids = append(ids, id)
		}
	}
	d.mu.Unlock()
	for _, id := range ids {
		d.kill(id, why)
	}
	// Firings of the kills above and those in flight end before the
	// daemon lets go of its lock.
	d.actions.stop(10 * time.Second)
	d.journal.flush()
}

// hold counts one piece of work in flight, which keeps the daemon from
// its idle exit; the function it returns ends it, and the idle clock
// starts again from then.
func (d *Daemon) hold() (release func()) {
	d.mu.Lock()
	d.clients++
	d.mu.Unlock()
	return func() {
		d.mu.Lock()
		d.clients--
		d.lastBusy = time.Now()
		d.mu.Unlock()
	}
}
