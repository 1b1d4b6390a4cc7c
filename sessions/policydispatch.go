package sessions

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentproto/agentproto/internal/fault"
)

// DispatchArgs are the options of the dispatch run a policy continues:
// those the first `dispatch --no-wait` was given, so every later wave
// runs as the first did.
type DispatchArgs struct {
	WPs         []string `json:"wps,omitempty"`
	MaxParallel int      `json:"max_parallel,omitempty"`
	NoPing      bool     `json:"no_ping,omitempty"`
}

// validate refuses what could not be a work package id or a count: the
// values become arguments of our own binary.
func (a *DispatchArgs) validate() error {
	if a == nil {
		return nil
	}
	if a.MaxParallel < 0 {
		return fault.Invalidf("dispatch max_parallel must be 1 or more, not %d", a.MaxParallel)
	}
	for _, wp := range a.WPs {
		if wp == "" || strings.HasPrefix(wp, "-") || strings.ContainsAny(wp, " \t\n=") {
			return fault.Invalidf("dispatch work package %q is not a WP id", wp)
		}
	}
	return nil
}

// argv is the dispatch command line: --no-wait, so the run launches the
// next wave and returns, leaving it to the policy it attaches.
func (a *DispatchArgs) argv(project string) []string {
	args := []string{"dispatch", project, "--no-wait"}
	if a == nil {
		return args
	}
	for _, wp := range a.WPs {
		args = append(args, "--wp="+wp)
	}
	if a.MaxParallel > 0 {
		args = append(args, "--max-parallel="+strconv.Itoa(a.MaxParallel))
	}
	if a.NoPing {
		args = append(args, "--no-ping")
	}
	return args
}

// runDispatch is the dispatch action: it runs `git-agentproto dispatch
// PROJECT --no-wait` in the policy's directory. Put after verify (and
// kill), it makes the daemon own the run: each WP verified starts the
// WPs it unblocks, with nobody waiting. Dispatch itself skips what is
// done, running or waiting for a decision, and takes the plan's dispatch
// lock, so two WPs settling at once launch each WP once.
func (d *Daemon) runDispatch(p *Policy) (bool, string) {
	// The run is the daemon's client while it launches: between the kill
	// of the last session and the start of the next nothing runs, and
	// the daemon must not stop for idleness under it.
	d.mu.Lock()
	d.clients++
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.clients--
		d.mu.Unlock()
	}()
	exe, err := os.Executable()
	if err != nil {
		return false, err.Error()
	}
	cmd := exec.Command(exe, p.Dispatch.argv(p.Project)...)
	cmd.Dir = p.Dir
	cmd.Env = cleanEnv()
	// The run is the daemon's: when the daemon stops (and ends every
	// session), the launch it started stops too instead of starting
	// sessions under a new daemon. The signal follows the thread that
	// forked, so the goroutine keeps its thread until the child is done.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	runtime.LockOSThread()
	out, err := d.actions.output(cmd)
	runtime.UnlockOSThread()
	// The last line says what the run did or why it stopped.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	detail := strings.TrimSpace(lines[len(lines)-1])
	if err != nil && detail == "" {
		detail = err.Error()
	}
	return err == nil, detail
}
