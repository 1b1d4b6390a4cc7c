package daemon

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentproto/agentproto/internal/procfs"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sessions"
)

// A settled session whose adapter said a new process can go on from where
// it is (sdk.Resumable) lets its adapter process go once it has been idle
// for StartArgs.ReleaseAfter: sixty-four settled sessions held 917 MiB in
// processes that only waited. Its next prompt launches the adapter again,
// in the same sandbox, and starts it with the state it said and the
// prompt as its first turn. Nothing of the session may still run when it
// is let go: an adapter with a process below it (a server its agent left
// running for the next turn) keeps it.

// resumable is a live session's side of it, under d.mu.
type resumable struct {
	// resumeState is what the adapter last said a new process needs; a
	// turn's start voids it.
	resumeState string
	// gen counts the adapter processes the session has had: events and
	// the end of the stream of an earlier one are no news.
	gen int
	// relaunch is how the session's adapter was started.
	relaunch relaunch
	// lifeMu orders letting the process go against a prompt starting a
	// new one (held without d.mu).
	lifeMu sync.Mutex
}

// relaunch is what starts the session's adapter again.
type relaunch struct {
	spec  host.Spec
	opts  host.LaunchOptions
	req   sdk.StartRequest
	after time.Duration
}

// cli is the session's current adapter process.
func (l *live) cli() *host.Client { return l.client.Load() }

// onResumable keeps the state and, when the session lets idle adapters
// go, looks again once it has been idle long enough.
func (d *Daemon) onResumable(l *live, gen int, state string) {
	d.mu.Lock()
	l.resumeState = state
	turns, after := l.rec.Turns, l.relaunch.after
	d.mu.Unlock()
	if after > 0 {
		time.AfterFunc(after, func() { d.release(l, gen, turns) })
	}
}

// releasable reports, under d.mu, whether the session is still as it was
// when its adapter said it could be resumed: settled, no prompt on its
// way, out of its spawn protocol, the same process and turn.
func (d *Daemon) releasable(l *live, gen, turns int) bool {
	return l.gen == gen && !l.ending && !l.rec.Released && l.resumeState != "" && l.rec.State == sessions.StateSettled &&
		l.rec.Turns == turns && l.prompted == 0 && !d.pinging[l.rec.ID]
}

// release lets the idle adapter process of a session go.
func (d *Daemon) release(l *live, gen, turns int) {
	l.lifeMu.Lock()
	defer l.lifeMu.Unlock()
	d.mu.Lock()
	ok := d.releasable(l, gen, turns)
	d.mu.Unlock()
	c := l.cli()
	if !ok {
		return
	}
	if left := below(c); len(left) > 0 {
		d.logf("session %s: its adapter stays: processes %v still run below it", l.rec.ID, left)
		return
	}
	d.mu.Lock()
	if !d.releasable(l, gen, turns) {
		d.mu.Unlock()
		return
	}
	l.gen++
	pid := l.rec.Pid
	l.rec.Released, l.rec.Pid = true, 0
	d.mu.Unlock()
	c.Kill()
	if pid > 0 {
		d.tellGuard(guardMsg{Del: pid})
	}
	os.Remove(d.store.GroupPath(l.rec.ID))
	d.save(l.rec)
	d.logf("session %s: idle; its adapter (pid %d) was let go until the next prompt", l.rec.ID, pid)
}

// below lists the processes under an adapter beyond itself: confined,
// the launcher's tree holds the adapter it runs.
func below(c *host.Client) []int {
	left := procfs.Descendants(c.Pid())
	if c.Confined() && len(left) > 0 {
		left = left[1:]
	}
	return left
}

// sendPrompt gives the session's adapter a prompt, starting a new process
// first when the session let its last one go.
func (d *Daemon) sendPrompt(ctx context.Context, l *live, text string, interrupt bool) error {
	l.lifeMu.Lock()
	defer l.lifeMu.Unlock()
	d.mu.Lock()
	released := l.rec.Released
	d.mu.Unlock()
	switch {
	case !released:
		return l.cli().Prompt(ctx, text, interrupt)
	case strings.TrimSpace(text) == "":
		return nil // starts no turn, so needs no process
	}
	return d.resume(ctx, l, text)
}

// resume launches the session's adapter again and starts it from its
// resume state with text as its first turn.
func (d *Daemon) resume(ctx context.Context, l *live, text string) error {
	d.mu.Lock()
	r, state := l.relaunch, l.resumeState
	d.mu.Unlock()
	c, err := host.Launch(r.spec, r.opts)
	if err != nil {
		d.fail(l, fmt.Sprintf("starting its adapter again for the next prompt: %v", err))
		l.out.Close() // no follower has it
		return err
	}
	d.mu.Lock()
	if l.ending {
		d.mu.Unlock()
		c.Kill()
		return fmt.Errorf("session %s is ending", l.rec.ID)
	}
	l.gen++
	gen := l.gen
	l.client.Store(c)
	l.rec.Released, l.rec.Pid = false, c.Pid()
	d.mu.Unlock()
	d.trackGroup(l)
	d.save(l.rec)
	go d.follow(l, c, gen)
	req := r.req
	req.Resume, req.InitialPrompt = state, text
	if err := c.Start(ctx, req); err != nil {
		d.fail(l, fmt.Sprintf("resuming the session in a new adapter process: %v", err))
		return err
	}
	d.logf("session %s: a new adapter process (pid %d) goes on from where the last left", l.rec.ID, c.Pid())
	return nil
}
