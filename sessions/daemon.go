package sessions

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Daemon owns the adapter plugins of one repository's sessions.
type Daemon struct {
	repo     *gitrepo.Repo
	store    Store
	ledger   *gitstore.Ledger
	idleExit time.Duration
	log      *os.File

	mu       sync.Mutex
	changed  *sync.Cond
	sessions map[string]*live
	clients  int
	lastBusy time.Time
	ln       net.Listener
	policies map[string]*Policy
	pinging  map[string]bool // sessions in their liveness check: no policy fires
	guard    *guardLink
}

// live is a session with its plugin.
type live struct {
	rec        *Record
	client     *host.Client
	out        *os.File
	turnOutput int64
	// turnTold: the adapter already said why this turn ended (a fault, an
	// interrupt), so no output is no sign of anything more.
	turnTold bool
	// ending: the daemon is ending the plugin and will record why; the
	// event stream breaking then is no news of its own.
	ending bool
}

// NewDaemon prepares a daemon; Run serves it.
func NewDaemon(repo *gitrepo.Repo, idleExit time.Duration, log *os.File) *Daemon {
	d := &Daemon{repo: repo, store: NewStore(repo.CommonDir), ledger: gitstore.Open(repo, gitstore.Options{}),
		idleExit: idleExit, log: log, sessions: map[string]*live{}, lastBusy: time.Now(), policies: map[string]*Policy{}, pinging: map[string]bool{}}
	d.changed = sync.NewCond(&d.mu)
	return d
}

func (d *Daemon) logf(format string, args ...any) {
	if d.log != nil {
		fmt.Fprintf(d.log, "%s %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
}

// ErrRunning means another daemon already serves the repository.
var ErrRunning = errors.New("a sessions daemon already runs for this repository")

// Run takes the daemon lock, listens on the socket and serves until idle.
func (d *Daemon) Run() error {
	lockPath := filepath.Join(d.repo.CommonDir, "agentproto", "daemon.lock")
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
	if _, err := EnsureRuntimeDir(); err != nil {
		return err
	}
	d.reapGroups()
	d.recoverOrphans()
	d.startGuard()
	sock := SocketPath(d.repo.CommonDir)
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
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	stopping := ""
	go func() {
		sig := <-signals
		d.mu.Lock()
		stopping = "the sessions daemon was stopped (" + sig.String() + ")"
		d.mu.Unlock()
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				d.mu.Lock()
				why := stopping
				d.mu.Unlock()
				if why == "" {
					why = fmt.Sprintf("the sessions daemon stopped after %v with nothing running", d.idleExit)
				}
				d.logf("idle for %v; stopping", d.idleExit)
				d.shutdown(why)
				return nil
			}
			return err
		}
		go d.serveConn(conn)
	}
}

// recoverOrphans marks sessions a previous daemon left unfinished as failed
// and kills their plugin process groups when they still run.
func (d *Daemon) recoverOrphans() {
	recs, _ := d.store.All()
	for _, r := range recs {
		if Terminal(r.State) {
			continue
		}
		if r.Pid > 0 && isAdapter(r.Pid) {
			syscall.Kill(-r.Pid, syscall.SIGKILL)
		}
		d.transition(r, StateFailed, "the sessions daemon stopped while the session was live", nil)
	}
}

// isAdapter checks that pid still is an adapter plugin before signalling it:
// pids are reused.
func isAdapter(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(b), host.BinaryPrefix)
}

// idleWatch closes the listener once nothing has happened for idleExit:
// no client, no turn in progress, no idle policy waiting on a live session.
// Settled sessions do not keep the daemon alive; shutdown ends them.
func (d *Daemon) idleWatch() {
	for {
		time.Sleep(time.Second)
		d.mu.Lock()
		busy := d.clients > 0
		for _, l := range d.sessions {
			if l.rec.State == StateLaunched || l.rec.State == StateRunning {
				busy = true
			}
		}
		for _, p := range d.policies {
			if p.Canceled || p.idle == 0 {
				continue
			}
			for _, id := range p.Sessions {
				if l := d.sessions[id]; l != nil && !Terminal(l.rec.State) {
					busy = true
				}
			}
		}
		if busy {
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
		if !Terminal(l.rec.State) {
			ids = append(ids, id)
		}
	}
	d.mu.Unlock()
	for _, id := range ids {
		d.kill(id, why)
	}
}

func (d *Daemon) serveConn(conn net.Conn) {
	defer conn.Close()
	if !d.admit(conn) {
		return
	}
	d.mu.Lock()
	d.clients++
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.clients--
		d.lastBusy = time.Now()
		d.mu.Unlock()
	}()
	// The request comes right after connecting; a client that sends
	// nothing must not keep the daemon from stopping.
	conn.SetReadDeadline(time.Now().Add(requestTimeout))
	req, err := decodeRequest(bufio.NewReaderSize(conn, 64<<10), MaxRequest)
	conn.SetReadDeadline(time.Time{})
	var resp *Response
	switch {
	case errors.Is(err, ErrFrameTooLarge):
		d.logf("refused a request: %v", err)
		resp = errResponse(fault.Invalidf("request refused: %v (the limit is %d MiB)", err, MaxRequest>>20))
	case errors.Is(err, ErrBadRequest):
		resp = errResponse(fault.Invalidf("%v", err))
	case err != nil:
		return // the client went away or sent nothing in time
	default:
		resp = d.handle(req)
	}
	b, _ := json.Marshal(resp)
	// A client that stops reading must not hold the goroutine for ever.
	conn.SetWriteDeadline(time.Now().Add(time.Minute))
	conn.Write(append(b, '\n'))
}

func errResponse(err error) *Response {
	return &Response{Error: err.Error(), Kind: int(fault.KindOf(err))}
}

func (d *Daemon) handle(req *Request) *Response {
	switch req.Op {
	case "ping":
		return &Response{OK: true, Pid: os.Getpid()}
	case "start":
		rec, err := d.start(req.Start)
		if err != nil {
			// The session exists (failed): its record goes with the error.
			resp := errResponse(err)
			resp.Session = rec
			return resp
		}
		return &Response{OK: true, Session: rec}
	case "prompt":
		if err := d.prompt(req.ID, req.Text, req.Interrupt); err != nil {
			return errResponse(err)
		}
		return &Response{OK: true}
	case "kill":
		rec, err := d.kill(req.ID, "killed")
		if err != nil {
			return errResponse(err)
		}
		return &Response{OK: true, Session: rec}
	case "wait":
		pending, err := d.wait(req.IDs, req.Until, req.Timeout)
		if err != nil {
			return errResponse(err)
		}
		return &Response{OK: len(pending) == 0, Pending: pending}
	case "monitor":
		recs, err := d.monitor(req.IDs, req.Timeout)
		if err != nil {
			return errResponse(err)
		}
		return &Response{OK: true, Records: recs}
	case "policy-attach":
		p, err := d.attachPolicy(req.Policy)
		if err != nil {
			return errResponse(err)
		}
		return &Response{OK: true, Policies: []*Policy{p}}
	case "policy-ls":
		d.mu.Lock()
		var ps []*Policy
		for _, p := range d.policies {
			c := *p
			ps = append(ps, &c)
		}
		d.mu.Unlock()
		return &Response{OK: true, Policies: ps}
	case "policy-cancel":
		d.mu.Lock()
		p := d.policies[req.ID]
		if p != nil {
			p.Canceled = true
			d.changed.Broadcast()
		}
		d.mu.Unlock()
		if p == nil {
			return errResponse(fault.Invalidf("no policy %s", req.ID))
		}
		d.savePolicy(p)
		return &Response{OK: true}
	case "policy-wait":
		pending, err := d.waitPolicies(req.IDs, req.Timeout)
		if err != nil {
			return errResponse(err)
		}
		return &Response{OK: len(pending) == 0, Pending: pending}
	case "gc":
		recs, err := d.gc(req.Apply)
		if err != nil {
			return errResponse(err)
		}
		return &Response{OK: true, Records: recs}
	}
	return errResponse(fault.Invalidf("unknown operation %q", req.Op))
}

func (d *Daemon) start(a *StartArgs) (*Record, error) {
	if a == nil || a.Adapter == "" || a.Path == "" || a.Dir == "" {
		return nil, fault.Invalidf("start needs an adapter, its path and a directory")
	}
	now := time.Now().UTC()
	rec := &Record{ID: newID(), Label: a.Label, Adapter: a.Adapter, Model: a.Model, Profile: a.Profile, Dir: a.Dir, Worktree: a.Worktree,
		State: StateLaunched, Created: now, LastActivity: now}
	out, err := os.OpenFile(d.store.OutputPath(rec.ID), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		os.MkdirAll(filepath.Dir(d.store.OutputPath(rec.ID)), 0o700)
		out, err = os.OpenFile(d.store.OutputPath(rec.ID), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	if err != nil {
		return nil, err
	}
	d.logf("start %s: adapter %s, environment %s", rec.ID, a.Adapter, envNames(a.Env))
	client, err := host.Launch(host.Spec{Name: a.Adapter, Path: a.Path, SHA256: a.SHA256},
		d.launchOptions(AdapterEnv(a.Env, a.AllowEnv)))
	if err != nil {
		out.Close()
		d.transition(rec, StateFailed, err.Error(), nil)
		return rec, startError(rec, err)
	}
	rec.Pid = client.Pid()
	l := &live{rec: rec, client: client, out: out}
	d.trackGroup(l)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if info, err := client.Describe(ctx); err == nil {
		rec.Capabilities = info.Capabilities
	}
	d.mu.Lock()
	d.sessions[rec.ID] = l
	d.mu.Unlock()
	d.transition(rec, StateLaunched, "", nil)
	go d.follow(l)
	first := a.Prompt
	if a.Ping {
		first = "" // start idle: the brief waits for the liveness check
	}
	err = client.Start(ctx, sdk.StartRequest{SessionID: rec.ID, Dir: a.Dir, Model: a.Model, InitialPrompt: first, Options: a.Options})
	if err != nil {
		return d.failStart(l, fmt.Sprintf("starting the session: %v", err), err)
	}
	if a.Ping {
		d.mu.Lock()
		d.pinging[rec.ID] = true
		d.mu.Unlock()
		err := d.ping(l)
		d.mu.Lock()
		delete(d.pinging, rec.ID)
		d.mu.Unlock()
		if err != nil {
			return d.failStart(l, err.Error()+"; it never received its prompt", err)
		}
		// Like any prompt: answer once its turn has started, so that a wait
		// sent right after start waits for this turn, not the ping's.
		if err := d.promptTurn(l, a.Prompt, false); err != nil {
			return d.failStart(l, fmt.Sprintf("sending the prompt: %v", err), err)
		}
	}
	// An adapter that died while taking the prompt fails the start too:
	// the caller would otherwise wait on a session that is already over.
	if snap := d.snapshot(rec); snap.State == StateFailed {
		return snap, startError(snap, nil)
	}
	return d.snapshot(rec), nil
}

// pingTimeout bounds the liveness check of the spawn protocol.
const pingTimeout = 2 * time.Minute

// ping sends sdk.PingPrompt and requires a line that is exactly READY in
// the output of that turn.
func (d *Daemon) ping(l *live) error {
	d.mu.Lock()
	turns, from := l.rec.Turns, l.rec.OutputBytes
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	err := l.client.Prompt(ctx, sdk.PingPrompt, false)
	cancel()
	if err != nil {
		return fmt.Errorf("liveness ping: %v", err)
	}
	deadline := time.AfterFunc(pingTimeout, func() {
		d.mu.Lock()
		d.changed.Broadcast()
		d.mu.Unlock()
	})
	defer deadline.Stop()
	start := time.Now()
	d.mu.Lock()
	for !(l.rec.Turns > turns && l.rec.State == StateSettled) && !Terminal(l.rec.State) && time.Since(start) < pingTimeout {
		d.changed.Wait()
	}
	state, to := l.rec.State, l.rec.OutputBytes
	d.mu.Unlock()
	if state != StateSettled {
		return fmt.Errorf("liveness ping: no answer (session %s)", state)
	}
	out, _ := os.ReadFile(d.store.OutputPath(l.rec.ID))
	if int64(len(out)) >= to && to >= from {
		out = out[from:to]
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "READY" {
			return nil
		}
	}
	tail := strings.TrimSpace(string(out))
	if len(tail) > 200 {
		tail = tail[len(tail)-200:]
	}
	return fmt.Errorf("liveness ping failed: the agent did not answer READY (it said %q); a script agent must print READY when its prompt is %q, or run with --no-ping", tail, sdk.PingPrompt)
}

func (d *Daemon) snapshot(r *Record) *Record {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := *r
	return &c
}

// follow consumes a session's events until it ends.
func (d *Daemon) follow(l *live) {
	err := l.client.Events(context.Background(), 0, func(e *host.Event) error {
		d.onEvent(l, e)
		return nil
	})
	d.mu.Lock()
	state, ending := l.rec.State, l.ending
	d.mu.Unlock()
	if !Terminal(state) && !ending {
		reason := "the adapter's event stream ended"
		if err != nil {
			reason = fmt.Sprintf("the adapter stopped answering: %v", err)
		}
		d.fail(l, reason)
	}
	l.out.Close()
}

func (d *Daemon) onEvent(l *live, e *host.Event) {
	d.mu.Lock()
	r := l.rec
	r.LastSeq = e.Seq
	r.LastActivity = time.Now().UTC()
	d.mu.Unlock()
	switch e.Kind {
	case host.Output:
		l.out.Write(e.Data)
		d.mu.Lock()
		r.OutputBytes += int64(len(e.Data))
		l.turnOutput += int64(len(e.Data))
		d.mu.Unlock()
	case host.TurnStarted:
		d.mu.Lock()
		r.Turns++
		l.turnOutput, l.turnTold = 0, false
		d.mu.Unlock()
		d.transition(r, StateRunning, "", nil)
	case host.TurnEnded:
		d.mu.Lock()
		empty := l.turnOutput == 0 && !l.turnTold
		if empty {
			w := fmt.Sprintf("turn %d ended with no output (the usual sign of a dead provider or a wrong model id)", r.Turns)
			if t := l.client.StderrTail(); t != "" {
				w += "; adapter stderr: " + t
			}
			r.Warnings = append(r.Warnings, w)
			r.Faults = append(r.Faults, sdk.FaultEmptyTurn)
		}
		d.mu.Unlock()
		extra := map[string]any{}
		if empty {
			extra["warning"] = "empty_turn"
		}
		d.transition(r, StateSettled, "", extra)
	case host.Error:
		if sdk.IsWarning(e.Fault) { // a typed warning, never a fault
			d.mu.Lock()
			r.Warnings = append(r.Warnings, e.Fault+": "+e.Text)
			l.turnTold = l.turnTold || e.Fault == sdk.WarnInterrupted
			d.mu.Unlock()
			fmt.Fprintf(l.out, "\n[agentproto] warning: %s: %s\n", e.Fault, e.Text)
			break
		}
		d.mu.Lock()
		r.Warnings = append(r.Warnings, e.Text)
		if e.Fault != "" {
			r.Faults = append(r.Faults, e.Fault)
			l.turnTold = true
		}
		d.mu.Unlock()
		fmt.Fprintf(l.out, "\n[agentproto] error: %s\n", e.Text)
	case host.Exited:
		code := int(e.ExitCode)
		d.mu.Lock()
		r.ExitCode = &code
		d.mu.Unlock()
		d.transition(r, StateExited, "", map[string]any{"exit_code": code})
		d.endPlugin(l)
	}
}

func (d *Daemon) fail(l *live, reason string) {
	// Kill first: it returns once the plugin's stderr is read to the end,
	// and a crash's last words are the ones worth keeping.
	d.endPlugin(l)
	d.mu.Lock()
	l.rec.StderrTail = l.client.StderrTail()
	d.mu.Unlock()
	d.transition(l.rec, StateFailed, reason, nil)
}

// transition moves a session to state, saves it, wakes waiters and
// records the change in the ledger.
func (d *Daemon) transition(r *Record, state, reason string, extra map[string]any) {
	d.mu.Lock()
	if Terminal(r.State) && r.Transitions > 0 {
		d.mu.Unlock()
		return
	}
	r.State = state
	r.Transitions++
	if reason != "" {
		r.Failure = reason
	}
	n := r.Transitions
	snap := *r
	d.store.Save(&snap)
	d.changed.Broadcast()
	d.mu.Unlock()
	data := map[string]any{"session": r.ID, "adapter": r.Adapter, "model": r.Model, "dir": r.Dir,
		"worktree": r.Worktree, "label": r.Label, "turn": snap.Turns, "output_ref": "sessions/" + r.ID + "/output.log"}
	if reason != "" {
		data["reason"] = reason
	}
	if snap.StderrTail != "" {
		data["stderr_tail"] = snap.StderrTail
	}
	for k, v := range extra {
		data[k] = v
	}
	b, _ := json.Marshal(data)
	id := fmt.Sprintf("session/%s/%d-%s", r.ID, n, state)
	if _, err := d.ledger.Append([]gitstore.Draft{{Kind: "session_" + state, ID: id, Data: b}}); err != nil {
		d.logf("ledger: %v", err)
	}
	d.onTransition(r.ID, state)
}

func (d *Daemon) get(id string) (*live, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.sessions[id]
	if l == nil {
		if _, err := d.store.Load(id); err == nil {
			return nil, fault.Invalidf("session %s is not live in this daemon (see sessions ls)", id)
		}
		return nil, fault.Invalidf("no session %s", id)
	}
	return l, nil
}

func (d *Daemon) prompt(id, text string, interrupt bool) error {
	l, err := d.get(id)
	if err != nil {
		return err
	}
	d.mu.Lock()
	state := l.rec.State
	d.mu.Unlock()
	if Terminal(state) {
		return fault.Invalidf("session %s is %s", id, state)
	}
	return d.promptTurn(l, text, interrupt)
}

// promptTurn sends a prompt and answers once the new turn has started, so
// that a wait sent right after waits for this turn, not the previous one.
func (d *Daemon) promptTurn(l *live, text string, interrupt bool) error {
	d.mu.Lock()
	turns := l.rec.Turns
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := l.client.Prompt(ctx, text, interrupt); err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	deadline := time.AfterFunc(5*time.Second, func() {
		d.mu.Lock()
		d.changed.Broadcast()
		d.mu.Unlock()
	})
	defer deadline.Stop()
	start := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	for l.rec.Turns == turns && !Terminal(l.rec.State) && time.Since(start) < 5*time.Second {
		d.changed.Wait()
	}
	return nil
}

// kill terminates the session (politely, then its whole process group) and
// marks it cleaned.
func (d *Daemon) kill(id, why string) (*Record, error) {
	l, err := d.get(id)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	l.ending = true // a plugin that exits on Terminate has not failed
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	l.client.Terminate(ctx)
	cancel()
	d.endPlugin(l)
	d.mu.Lock()
	state := l.rec.State
	d.mu.Unlock()
	if state != StateFailed && state != StateCleaned {
		d.mu.Lock()
		l.rec.State = StateSettled // leave any terminal state for cleaned
		d.mu.Unlock()
		d.transition(l.rec, StateCleaned, why, nil)
	}
	return d.snapshot(l.rec), nil
}

// reached reports whether a session is where wait wants it.
func reached(state, until string) bool {
	if until == "exit" {
		return Terminal(state)
	}
	return state == StateSettled || Terminal(state)
}

func (d *Daemon) wait(ids []string, until, timeout string) ([]string, error) {
	if until == "" {
		until = "turn-end"
	}
	if until != "turn-end" && until != "exit" {
		return nil, fault.Invalidf("--until takes turn-end or exit, not %q", until)
	}
	dur, err := time.ParseDuration(timeout)
	if err != nil || dur <= 0 {
		return nil, fault.Invalidf("--timeout %q is not a duration with a unit (such as 40m)", timeout)
	}
	for _, id := range ids {
		if _, err := d.get(id); err != nil {
			if rec, lerr := d.store.Load(id); lerr == nil && reached(rec.State, until) {
				continue
			}
			return nil, err
		}
	}
	deadline := time.Now().Add(dur)
	timer := time.AfterFunc(dur, func() {
		d.mu.Lock()
		d.changed.Broadcast()
		d.mu.Unlock()
	})
	defer timer.Stop()
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		var pending []string
		for _, id := range ids {
			l := d.sessions[id]
			if l != nil && !reached(l.rec.State, until) {
				pending = append(pending, id)
			}
		}
		if len(pending) == 0 || time.Now().After(deadline) {
			return pending, nil
		}
		d.changed.Wait()
	}
}

// gc cleans settled and dead sessions; running ones idle for long are
// reported as orphans and left alone.
func (d *Daemon) gc(apply bool) ([]*Record, error) {
	d.mu.Lock()
	var todo []*live
	for _, l := range d.sessions {
		todo = append(todo, l)
	}
	d.mu.Unlock()
	var out []*Record
	for _, l := range todo {
		snap := d.snapshot(l.rec)
		if snap.State == StateCleaned {
			continue
		}
		if snap.State == StateSettled || snap.State == StateExited || snap.State == StateFailed {
			if apply {
				if snap.State == StateSettled {
					d.kill(snap.ID, "collected by sessions gc")
				} else {
					d.endPlugin(l)
					d.mu.Lock()
					l.rec.State = StateSettled
					d.mu.Unlock()
					d.transition(l.rec, StateCleaned, "collected by sessions gc", nil)
				}
				snap = d.snapshot(l.rec)
			}
		}
		out = append(out, snap)
	}
	return out, nil
}
