package host

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentproto/agentproto/internal/fault"
)

// holderGrace bounds how long Kill waits for the sandbox launcher to kill
// the tree it holds before the process group is killed outright (which
// would leave a setsid'd orphan to init).
const holderGrace = 3 * time.Second

// confine rewrites cmd to start the plugin through the sandbox launcher.
// The pinned checksum is checked here, on the adapter binary: go-plugin
// would hash the launcher.
func confine(cmd *exec.Cmd, spec Spec, c *Confinement, sockDir string) error {
	if spec.SHA256 != "" {
		got, err := FileSHA256(spec.Path)
		if err != nil {
			return fmt.Errorf("adapter %s: %w", spec.Name, err)
		}
		if got != spec.SHA256 {
			return fault.Refusedf("adapter %s: %s has sha256 %s but %s is pinned; if the change is expected, run git agentproto plugin pin %s", spec.Name, spec.Path, got, spec.SHA256, spec.Name)
		}
	}
	p, err := c.Policy(sockDir)
	if err != nil {
		return fault.Refusedf("adapter %s: %v", spec.Name, err)
	}
	cmd.Path = c.Launcher
	cmd.Args = []string{c.Launcher, p.Encode(), "--", spec.Path}
	// The launcher catches SIGTERM and kills the tree it holds; SIGKILL
	// would leave it no time to.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	return nil
}

// stopHolder asks the launcher to end its tree and waits for it to exit:
// on its pidfd, which its exit wakes, or else by looking every 2 ms.
func (c *Client) stopHolder() {
	if c.cmd.Process == nil {
		return
	}
	deadline := time.Now().Add(holderGrace)
	exited := func() bool { return c.pc == nil || c.pc.Exited() }
	if fd := *c.holderFD; fd >= 0 {
		unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0)
		for time.Now().Before(deadline) && !exited() {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if n, err := unix.Poll(fds, 50); err == nil && n > 0 {
				return // it has exited; go-plugin reaps it
			}
		}
		return
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	for time.Now().Before(deadline) && !exited() {
		time.Sleep(2 * time.Millisecond)
	}
}
