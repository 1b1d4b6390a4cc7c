package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sessions"
)

// Bounds of the calls a session's lifecycle makes to its adapter.
const (
	// callTimeout bounds one call to the adapter (start, prompt).
	callTimeout = 15 * time.Second
	// turnStartTimeout bounds how long a prompt waits for its turn to
	// start; an adapter slower than this still gets the prompt.
	turnStartTimeout = 5 * time.Second
	// pingTimeout bounds the liveness check of the spawn protocol.
	pingTimeout = 2 * time.Minute
	// terminateTimeout is what a polite end gets before the process group
	// is killed.
	terminateTimeout = 3 * time.Second
)

// start launches a session's plugin and starts the session: its first
// prompt at once, or, with Ping, after a liveness check.
func (d *Daemon) start(a *sessions.StartArgs) (*sessions.Record, error) {
	if a == nil || a.Adapter == "" || a.Path == "" || a.Dir == "" {
		return nil, fault.Invalidf("start needs an adapter, its path and a directory")
	}
	if err := checkSpawn(a); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	if !a.Deadline.IsZero() && !now.Before(a.Deadline) {
		return nil, fault.Refusedf("the session's deadline %s has passed", a.Deadline.UTC().Format(time.RFC3339))
	}
	lim, err := d.loadLimits()
	if err != nil {
		return nil, err
	}
	d.book.load(d.store.View)
	if err := d.refuseSpent(lim.budgets, a.Label); err != nil {
		return nil, err
	}
	rec := &sessions.Record{ID: newID(), Label: a.Label, Adapter: a.Adapter, Model: a.Model, Profile: a.Profile, Dir: a.Dir, Worktree: a.Worktree,
		State: sessions.StateLaunched, Created: now, LastActivity: now, Deadline: a.Deadline.UTC()}
	out, err := d.openOutput(rec.ID)
	if err != nil {
		return nil, err
	}
	d.logf("start %s: adapter %s, environment %s", rec.ID, a.Adapter, envNames(a.Env))
	env := withSessionEnv(sessions.AdapterEnv(a.Env, a.AllowEnv, a.PassEnv), rec.ID)
	confine, env, err := d.confinement(rec, a, env)
	if err != nil {
		out.Close()
		os.RemoveAll(d.store.SessionDir(rec.ID))
		return nil, err
	}
	opts := d.launchOptions(env)
	opts.Confine = confine
	client, err := host.Launch(host.Spec{Name: a.Adapter, Path: a.Path, SHA256: a.SHA256}, opts)
	if err != nil {
		out.Close()
		os.RemoveAll(d.sessionTmp(rec.ID))
		d.transition(rec, sessions.StateFailed, err.Error(), nil)
		return rec, startError(rec, err)
	}
	rec.Pid = client.Pid()
	l := &live{rec: rec, out: out, limits: lim}
	l.client.Store(client)
	l.relaunch = relaunch{spec: host.Spec{Name: a.Adapter, Path: a.Path, SHA256: a.SHA256}, opts: opts,
		req: sdk.StartRequest{SessionID: rec.ID, Dir: a.Dir, Model: a.Model, Options: a.Options}, after: a.ReleaseAfter}
	d.trackGroup(l)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if info, err := client.Describe(ctx); err == nil {
		rec.Capabilities, rec.AdapterCapabilities, rec.CapabilitiesFrom = info.Capabilities, info.Capabilities, sessions.CapabilitiesFromAdapter
	}
	d.mu.Lock()
	d.sessions[rec.ID] = l
	d.mu.Unlock()
	d.transition(rec, sessions.StateLaunched, "", nil)
	go d.follow(l, client, 0)
	l.errLog = openErrorLog(a.ErrorLog)
	go d.watchWedge(l, a.WedgeAfter, a.ErrorLog)
	d.endAtDeadline(l, a.Deadline)
	first := a.Prompt
	if a.Ping || a.ModelSwitch != "" {
		first = "" // start idle: the brief waits for the spawn protocol
	}
	err = client.Start(ctx, sdk.StartRequest{SessionID: rec.ID, Dir: a.Dir, Model: a.Model, InitialPrompt: first, Options: a.Options})
	if err != nil {
		return d.failStart(l, fmt.Sprintf("starting the session: %v", err), err)
	}
	if a.Ping || a.ModelSwitch != "" {
		if err := d.spawn(l, a); err != nil {
			return d.failStart(l, err.Error()+"; it never received its prompt", err)
		}
		// Like any prompt: answer once its turn has started, so that a wait
		// sent right after start waits for this turn, not the ping's.
		if err := d.promptTurn(l, a.Prompt, false); err != nil {
			return d.failStart(l, fmt.Sprintf("sending the prompt: %v", err), err)
		}
		d.spawnEvent(l, Spawn{Step: "prompt"})
	}
	// An adapter that died while taking the prompt fails the start too:
	// the caller would otherwise wait on a session that is already over.
	if snap := d.snapshot(rec); snap.State == sessions.StateFailed {
		return snap, startError(snap, nil)
	}
	return d.snapshot(rec), nil
}

// openOutput opens a new session's output log, private to this user.
func (d *Daemon) openOutput(id string) (*os.File, error) {
	path := d.store.OutputPath(id)
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		os.MkdirAll(filepath.Dir(path), 0o700)
		out, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	return out, err
}

// pingTurn sends sdk.PingPrompt and requires a line that is exactly READY
// in the output of that turn; it returns that output.
func (d *Daemon) pingTurn(l *live) (string, error) {
	out, state, err := d.turnOutput(l, sdk.PingPrompt, pingTimeout)
	if err != nil {
		return "", fmt.Errorf("liveness ping: %v", err)
	}
	if state != sessions.StateSettled {
		return out, fmt.Errorf("liveness ping: no answer (session %s)", state)
	}
	if answeredReady(out) {
		return out, nil
	}
	if f := d.lastFault(l); f != "" && strings.TrimSpace(out) == "" {
		// The adapter said why (an agent that never started, a dead
		// key): that, not the READY a script must print, is the news.
		return out, fmt.Errorf("liveness ping failed: the turn ended with no answer and %s", f)
	}
	return out, fmt.Errorf("liveness ping failed: the agent did not answer READY (it said %q); a script agent must print READY when its prompt is %q, or run with --no-ping", tail(out), sdk.PingPrompt)
}

// turnOutput sends text as one turn, waits up to dur for its end and
// returns what the agent printed in it and the state it left.
func (d *Daemon) turnOutput(l *live, text string, dur time.Duration) (string, string, error) {
	d.mu.Lock()
	turns, from := l.rec.Turns, l.rec.OutputBytes
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	err := l.cli().Prompt(ctx, text, false)
	cancel()
	if err != nil {
		return "", "", err
	}
	var state string
	var to int64
	d.await(dur, func() bool {
		state, to = l.rec.State, l.rec.OutputBytes
		return (l.rec.Turns > turns && state == sessions.StateSettled) || sessions.Terminal(state)
	})
	out, _ := os.ReadFile(d.store.OutputPath(l.rec.ID))
	if int64(len(out)) >= to && to >= from {
		out = out[from:to]
	}
	return string(out), state, nil
}

// answeredReady finds the ping's answer: READY on a line of its own, or
// as the output's last word right after a sentence that ended without a
// newline — codex-acp prints its unknown-model warning and the answer as
// one text ("...and cause issues.READY"). READY inside words ("NOTREADY")
// or after a space ("not READY") is no answer.
func answeredReady(out string) bool {
	if hasLine(out, func(line string) bool { return line == "READY" }) {
		return true
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rest, ok := strings.CutSuffix(strings.TrimSpace(lines[len(lines)-1]), "READY")
	return ok && rest != "" && strings.ContainsRune(".!?:;)]", rune(rest[len(rest)-1]))
}

func hasLine(out string, ok func(string) bool) bool {
	for _, line := range strings.Split(out, "\n") {
		if ok(strings.TrimSpace(line)) {
			return true
		}
	}
	return false
}

func tail(out string) string {
	t := strings.TrimSpace(out)
	if len(t) > 200 {
		t = t[len(t)-200:]
	}
	return t
}

// prompt sends a live session another turn, or interrupts its turn.
func (d *Daemon) prompt(id, text string, interrupt bool) error {
	l, err := d.get(id)
	if err != nil {
		return err
	}
	snap := d.snapshot(l.rec)
	if sessions.Terminal(snap.State) {
		return fault.Invalidf("session %s is %s", id, snap.State)
	}
	if interrupt && snap.CapabilitiesFrom != "" && !slices.Contains(snap.Capabilities, sdk.CapInterrupt) {
		return fault.Refusedf("session %s (%s) does not have %s (it has %s): its turn cannot be interrupted; wait for the turn to end",
			id, snap.Adapter, sdk.CapInterrupt, orNone(snap.Capabilities))
	}
	return d.promptTurn(l, text, interrupt)
}

// promptTurn sends a prompt and answers once the new turn has started, or
// after turnStartTimeout. A wait sent right after waits for this turn, not
// the previous one, either way: the prompt counts as pending until its turn
// starts (an adapter under load reports the start late, and a wait that
// took the previous turn's end for this one returned before its work).
func (d *Daemon) promptTurn(l *live, text string, interrupt bool) error {
	starts := strings.TrimSpace(text) != "" // a blank prompt starts no turn
	d.mu.Lock()
	turns := l.rec.Turns
	if starts {
		l.prompted++
	}
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := d.sendPrompt(ctx, l, text, interrupt); err != nil {
		if starts {
			d.mu.Lock()
			l.prompted--
			d.changed.Broadcast()
			d.mu.Unlock()
		}
		return err
	}
	if !starts {
		return nil
	}
	if !d.await(turnStartTimeout, func() bool { return l.rec.Turns != turns || sessions.Terminal(l.rec.State) }) {
		d.logf("session %s: the turn of a prompt had not started after %s; waits wait for it", l.rec.ID, turnStartTimeout)
	}
	return nil
}

// kill terminates the session (politely, then its whole process group) and
// marks it cleaned.
func (d *Daemon) kill(id, why string) (*sessions.Record, error) {
	l, err := d.get(id)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	l.ending = true // a plugin that exits on Terminate has not failed
	released := l.rec.Released
	d.mu.Unlock()
	if released {
		// No process to end; the output log no follower closes.
		l.out.Close()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), terminateTimeout)
		l.cli().Terminate(ctx)
		cancel()
	}
	d.endPlugin(l)
	d.endTurn(l)
	// A failed session keeps its failure: it was not cleaned, it died.
	if d.state(l) != sessions.StateFailed {
		d.transition(l.rec, sessions.StateCleaned, why, nil)
	}
	return d.snapshot(l.rec), nil
}

// gc cleans settled and dead sessions; running ones idle for long are
// reported as orphans and left alone.
func (d *Daemon) gc(apply bool) ([]*sessions.Record, error) {
	d.mu.Lock()
	var todo []*live
	for _, l := range d.sessions {
		todo = append(todo, l)
	}
	d.mu.Unlock()
	var out []*sessions.Record
	for _, l := range todo {
		snap := d.snapshot(l.rec)
		switch {
		case snap.State == sessions.StateCleaned:
			continue
		case !apply:
		case snap.State == sessions.StateSettled:
			d.kill(snap.ID, "collected by sessions gc")
			snap = d.snapshot(l.rec)
		case sessions.Terminal(snap.State):
			d.endPlugin(l)
			d.transition(l.rec, sessions.StateCleaned, "collected by sessions gc", nil)
			snap = d.snapshot(l.rec)
		}
		out = append(out, snap)
	}
	return out, nil
}
