package sandbox

import (
	"context"
	"os/exec"
	"syscall"
)

// launcherCommand runs the launcher with args: its own process group, the
// parent-death signal it catches, and SIGTERM to stop it, on which it
// ends the whole tree (a kill would leave what it holds to init).
func launcherCommand(ctx context.Context, launcher string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, launcher, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	return cmd
}
