package daemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/sandbox"
	"github.com/agentproto/agentproto/sessions"
)

// The guard is a small process beside the daemon that outlives it: the
// daemon tells it each process group it launches and each it ends, over a
// pipe. When the pipe closes — the daemon exited, however it was killed,
// -9 included — the guard kills the groups still open and removes their
// socket directories. Agents do not outlive their daemon; the reaper at
// the next daemon start covers a guard killed as well.
type guardMsg struct {
	Add *group `json:"add,omitempty"`
	Del int    `json:"del,omitempty"`
}

// Guard serves the guard side, reading the daemon's messages from r until
// it closes.
func Guard(r io.Reader, log io.Writer) error {
	groups := map[int]*group{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		var m guardMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.Add != nil && m.Add.Pgid > 1 {
			groups[m.Add.Pgid] = m.Add
		}
		delete(groups, m.Del)
	}
	for _, g := range groups {
		if g.reap() {
			fmt.Fprintf(log, "sessions guard: the daemon is gone; killed process group %d\n", g.Pgid)
		}
	}
	return nil
}

// guardLink is the daemon's end of the pipe to its guard.
type guardLink struct {
	mu sync.Mutex
	w  io.WriteCloser
}

// startGuard launches the guard (agentproto-sessions serve --guard) in its own
// process group, so that a signal to the daemon's group spares it.
func (d *Daemon) startGuard() {
	exe, err := os.Executable()
	if err != nil {
		d.logf("no sessions guard: %v", err)
		return
	}
	cmd := exec.Command(exe, "serve", "--guard")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Stdout, cmd.Stderr = d.log, d.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		d.logf("no sessions guard: %v", err)
		return
	}
	go cmd.Wait()
	d.guard = &guardLink{w: w}
	d.logf("sessions guard pid %d", cmd.Process.Pid)
}

func (d *Daemon) tellGuard(m guardMsg) {
	if d.guard == nil {
		return
	}
	b, _ := json.Marshal(m)
	d.guard.mu.Lock()
	defer d.guard.mu.Unlock()
	if _, err := d.guard.w.Write(append(b, '\n')); err != nil {
		d.logf("sessions guard: %v", err)
	}
}

// trackGroup records a launched plugin's group on disk (for the reaper)
// and with the guard.
func (d *Daemon) trackGroup(l *live) {
	c := l.cli()
	g, err := newGroup(c.Pid(), c.SocketDir())
	if err == nil && l.rec.Sandbox == sandbox.KindLandlock {
		g.Tmp = d.sessionTmp(l.rec.ID)
	}
	if err != nil {
		d.logf("session %s: its process group is not tracked: %v", l.rec.ID, err)
		return
	}
	if err := d.store.saveGroup(l.rec.ID, g); err != nil {
		d.logf("session %s: its process group is not recorded: %v", l.rec.ID, err)
	}
	d.tellGuard(guardMsg{Add: g})
}

// endPlugin kills a session's plugin and its whole group, and forgets the
// group.
func (d *Daemon) endPlugin(l *live) {
	d.mu.Lock()
	l.ending = true
	d.mu.Unlock()
	c := l.cli()
	c.Kill()
	if pid := c.Pid(); pid > 0 {
		d.tellGuard(guardMsg{Del: pid})
	}
	os.Remove(d.store.GroupPath(l.rec.ID))
	os.RemoveAll(d.sessionTmp(l.rec.ID))
}

// launchOptions puts the plugin's socket in the private runtime dir when
// the path fits; else it stays in the temp dir, as go-plugin does.
func (d *Daemon) launchOptions(env []string) host.LaunchOptions {
	o := host.LaunchOptions{Env: env}
	if pluginSocketsFit(d.repo.CommonDir) {
		o.SocketDir, o.SocketPrefix = sessions.RuntimeDir(), pluginSocketPrefix(d.repo.CommonDir)
	}
	return o
}
