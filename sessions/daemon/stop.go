package daemon

import (
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// stop closes the listener, which ends Run: it then ends the sessions
// still alive and records why. The first reason given is kept.
func (d *Daemon) stop(why string) {
	d.mu.Lock()
	if d.stopping == "" {
		d.stopping = why
	}
	d.mu.Unlock()
	d.ln.Close()
}

// stopReason is why the daemon was stopped, "" when it went idle.
func (d *Daemon) stopReason() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stopping
}

// stopOnSignal stops the daemon on SIGTERM or SIGINT.
func (d *Daemon) stopOnSignal() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		sig := <-signals
		d.stop("the sessions daemon was stopped (" + sig.String() + ")")
	}()
}

// stopping answers a stop request: the records of the sessions the
// daemon will end as it stops. With a turn in progress it refuses unless
// force: stopping would end work under way. The listener is closed once
// the answer is written (serveConn), so the client gets it.
func (d *Daemon) stopRequest(force bool) (*sessions.Response, error) {
	d.mu.Lock()
	var ending []*sessions.Record
	var busy []string
	for _, l := range d.sessions {
		if sessions.Terminal(l.rec.State) {
			continue
		}
		r := *l.rec
		ending = append(ending, &r)
		if r.State == sessions.StateLaunched || r.State == sessions.StateRunning {
			busy = append(busy, fmt.Sprintf("%s (%s, %s)", r.ID, r.Label, r.State))
		}
	}
	d.mu.Unlock()
	sort.Strings(busy)
	sort.Slice(ending, func(i, j int) bool { return ending[i].ID < ending[j].ID })
	if len(busy) > 0 && !force {
		return nil, fault.Refusedf("%d sessions are at work: %s; stopping the daemon would end them; wait for them (git agentproto sessions wait ID...), or stop it anyway: git agentproto sessions stop --force",
			len(busy), strings.Join(busy, ", "))
	}
	return &sessions.Response{OK: true, Pid: os.Getpid(), Records: ending}, nil
}
