package sessions

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// ErrDaemonGone is wrapped by a call whose daemon closed the connection
// before it answered: it died (killed, crashed) or stopped meanwhile.
var ErrDaemonGone = errors.New("the sessions daemon closed the connection")

// FailureDaemonStopped is the failure of a session a new daemon found
// live in the records of one that stopped (killed, the machine down): the
// session died with it.
const FailureDaemonStopped = "the sessions daemon stopped while the session was live"

// Client talks to the daemon of one repository.
type Client struct {
	Repo *gitrepo.Repo
	// Serve is the command that starts a daemon (git-agentproto serve).
	Serve []string
	// KeepEnv names variables the daemon is started with beyond
	// DaemonEnv's own (the profiles' key variables, which a dispatch
	// fired by a policy needs).
	KeepEnv []string
	// Warn, when set, is told what a command should warn about (a
	// session started unconfined); the command says it once.
	Warn func(string)
}

// Call sends one request, starting the daemon first when none runs. The
// typed methods (Start, Prompt, Wait, ...) are the way to call it; a
// request the daemon refuses returns its answer with the error. A ctx
// that ends first ends the call: the connection is closed, and the
// daemon's answer, if one comes, is lost.
func (c *Client) Call(ctx context.Context, req *Request) (*Response, error) {
	if req.Start != nil {
		// The daemon passes an adapter only these; the rest of our
		// environment (tokens) has no business on the socket.
		s := *req.Start
		s.Env = AdapterEnv(s.Env, s.AllowEnv, s.PassEnv)
		r := *req
		r.Start = &s
		req = &r
	}
	b, _ := json.Marshal(req)
	if err := checkRequestSize(b); err != nil {
		return nil, err
	}
	conn, err := c.dial(ctx, true)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// Closing the connection unblocks the write and the read below.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	// Read after connecting: the daemon writes its token before it
	// listens.
	if tok := readToken(c.Repo.CommonDir); tok != "" {
		r := *req
		r.Token = tok
		b, _ = json.Marshal(&r)
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	line, err := readFrame(bufio.NewReaderSize(conn, 64<<10), MaxResponse)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v (see %s)", ErrDaemonGone, err, c.logPath())
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, fmt.Errorf("bad answer from the sessions daemon: %v", err)
	}
	if resp.Error != "" {
		kind := fault.Kind(resp.Kind)
		if kind == 0 {
			kind = fault.Failure
		}
		return &resp, fault.Wrap(kind, errors.New(resp.Error))
	}
	return &resp, nil
}

// Running reports whether a daemon answers, without starting one.
func (c *Client) Running(ctx context.Context) bool {
	ok, _ := c.Probe(ctx)
	return ok
}

// Probe is Running that also gives a refusal (an untrusted runtime
// directory or socket): "no daemon" would hide it.
func (c *Client) Probe(ctx context.Context) (bool, error) {
	conn, err := c.dial(ctx, false)
	if err != nil {
		if fault.KindOf(err) == fault.Refused {
			return false, err
		}
		return false, nil
	}
	conn.Close()
	return true, nil
}

func (c *Client) logPath() string {
	return filepath.Join(c.Repo.CommonDir, "agentproto", "daemon.log")
}

func (c *Client) dial(ctx context.Context, start bool) (net.Conn, error) {
	if _, err := EnsureRuntimeDir(); err != nil {
		return nil, err
	}
	sock := SocketPath(c.Repo.CommonDir)
	conn, err := connect(ctx, sock)
	if err == nil || !start || fault.KindOf(err) == fault.Refused {
		return conn, err
	}
	exited, err := c.spawn()
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if conn, err = connect(ctx, sock); err == nil || fault.KindOf(err) == fault.Refused {
			return conn, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-exited:
			// Ended before it listened. When another client's daemon
			// holds the lock, that one is starting: wait for it. Else its
			// last words say why (a missing agentproto-sessions, a broken
			// agentproto.toml), at once rather than after the deadline.
			exited = nil
			if !LockHeld(LockPath(c.Repo.CommonDir)) {
				return nil, fmt.Errorf("the sessions daemon did not start: %s (see %s)", c.lastLogLine(), c.logPath())
			}
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("the sessions daemon did not start: %v (see %s)", err, c.logPath())
}

// connect dials the daemon socket and checks who listens there before
// anything is sent: our own user, or nobody we talk to.
func connect(ctx context.Context, sock string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, err
	}
	cred, ok, err := SamePeerUser(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: %w", sock, err)
	}
	if !ok {
		conn.Close()
		return nil, fault.Refusedf("refusing the sessions socket %s: the process listening there (pid %d) runs as uid %d, not as you (uid %d); nothing was sent to it. Find out who made it, then remove it", sock, cred.Pid, cred.Uid, os.Geteuid())
	}
	return conn, nil
}

// spawn starts a detached daemon: its own session, no terminal, output to
// daemon.log. It outlives this command.
func (c *Client) spawn() (exited <-chan struct{}, err error) {
	if len(c.Serve) == 0 {
		return nil, errors.New("no daemon command")
	}
	if err := os.MkdirAll(filepath.Dir(c.logPath()), 0o755); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(c.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(c.Serve[0], c.Serve[1:]...)
	// From the work tree, the daemon finds the repository and its
	// agentproto.toml ([sessions] idle_exit) the ordinary way; a bare
	// repository is named by GIT_DIR.
	cmd.Dir = c.Repo.WorkTree
	cmd.Env = DaemonEnv(os.Environ(), c.KeepEnv)
	if cmd.Dir == "" {
		cmd.Dir = c.Repo.CommonDir
		cmd.Env = append(cmd.Env, "GIT_DIR="+c.Repo.CommonDir)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the sessions daemon: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return done, nil
}

// LockHeld reports whether a daemon holds the lock at path (LockPath).
func LockHeld(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// lastLogLine is the daemon log's last line, where a daemon that could
// not start says why.
func (c *Client) lastLogLine() string {
	b, _ := os.ReadFile(c.logPath())
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "agentproto: ")
}

// daemonEnv names what the daemon is started with: the user's identity,
// locale, runtime and git settings, and AGENTPROTO_*. Tokens (GH_TOKEN,
// cloud credentials) are not among them: the daemon is the parent of
// every agent, and the environment it was started with stays readable in
// /proc for as long as it runs.
var daemonEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR", "TERM",
	"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"}

// DaemonEnv is the environment a daemon is started with: daemonEnv,
// AGENTPROTO_*, GIT_* but those that would point it at another
// repository, and the names in keep.
func DaemonEnv(env []string, keep []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "GIT_DIR" || k == "GIT_WORK_TREE" || k == "GIT_INDEX_FILE" || k == "GIT_COMMON_DIR":
		case strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "AGENTPROTO_") || slices.Contains(daemonEnv, k) || slices.Contains(keep, k):
			out = append(out, kv)
		}
	}
	return out
}
