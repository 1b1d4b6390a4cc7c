package daemon

import (
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"github.com/agentproto/agentproto/internal/companion"
)

// runDispatch is the dispatch action: it runs `git-agentproto dispatch
// PROJECT --no-wait` in the policy's directory. Put after verify (and
// kill), it makes the daemon own the run: each WP verified starts the
// WPs it unblocks, with nobody waiting. Dispatch itself skips what is
// done, running or waiting for a decision, and takes the plan's dispatch
// lock, so two WPs settling at once launch each WP once.
func (d *Daemon) runDispatch(p *policy) (bool, string) {
	// The run is the daemon's client while it launches: between the kill
	// of the last session and the start of the next nothing runs, and
	// the daemon must not stop for idleness under it.
	defer d.hold()()
	exe, err := companion.Find(companion.CLI) // the CLI's verbs are git-agentproto's
	if err != nil {
		return false, err.Error()
	}
	cmd := exec.Command(exe, p.Dispatch.Argv(p.Project)...)
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
