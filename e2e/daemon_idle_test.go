package e2e

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// daemonHeld reports whether a sessions daemon holds dir's daemon lock.
func daemonHeld(dir string) bool { return sessions.LockHeld(sessions.LockPath(dir + "/.git")) }

// A daemon with nothing running stops after idle_exit (5s in tests)
// while clients only look: connections that send nothing and a watch
// refreshing every half second. It ends its settled session as it stops.
func TestDaemonIdleExitsWhileClientsOnlyLook(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "hello")
	if err != nil {
		t.Fatal(errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "30s")
	common := strings.TrimSpace(must(t, dir, "git", "rev-parse", "--path-format=absolute", "--git-common-dir"))
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	deadline := time.Now().Add(25 * time.Second)
	for daemonHeld(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon still runs 25s after the session settled (idle_exit 5s), with %d idle connections and a watch", len(idle))
		}
		if c, err := net.Dial("unix", sessions.SocketPath(common)); err == nil {
			idle = append(idle, c)
		}
		sh(t, dir, nil, "git", "agentproto", "watch", "--once", "--json")
		time.Sleep(500 * time.Millisecond)
	}
	if s := sessionState(dir, id); s != "cleaned" {
		t.Fatalf("the settled session is %q after the daemon stopped, want cleaned", s)
	}
}

// sessions stop stops the daemon now: refused while a turn is in
// progress, naming it; --force ends it too; with no daemon it does
// nothing.
func TestSessionsStopStopsTheDaemon(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", script(`{"op":"sleep","ms":60000}`))
	if err != nil {
		t.Fatal(errOut)
	}
	waitFor(t, "the turn to run", func() bool { return sessionState(dir, id) == "running" })
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "sessions", "stop")
	if exitCode(err) != 5 || !strings.Contains(errOut, "1 sessions are at work: "+id) || !strings.Contains(errOut, "git agentproto sessions stop --force") || !daemonHeld(dir) {
		t.Fatalf("stop with a turn in progress: exit %d\n%s%s", exitCode(err), out, errOut)
	}
	out = must(t, dir, "git", "agentproto", "sessions", "stop", "--force")
	if !strings.Contains(out, "stopped the sessions daemon (pid ") || !strings.Contains(out, "1 sessions ended") || !strings.Contains(out, id) {
		t.Fatalf("stop --force:\n%s", out)
	}
	if daemonHeld(dir) {
		t.Fatal("sessions stop returned before the daemon was gone")
	}
	if s := sessionState(dir, id); s != "cleaned" {
		t.Fatalf("the session is %q after stop, want cleaned", s)
	}
	log := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "session_cleaned", "--json")
	if !strings.Contains(log, "git agentproto sessions stop") {
		t.Fatalf("session_cleaned does not say why: %s", log)
	}
	if out := must(t, dir, "git", "agentproto", "sessions", "stop"); !strings.Contains(out, "no sessions daemon runs") || daemonHeld(dir) {
		t.Fatalf("stop with no daemon:\n%s", out)
	}
}
