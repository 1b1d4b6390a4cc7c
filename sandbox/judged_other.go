//go:build !linux

package sandbox

import (
	"context"
	"os/exec"
)

// launcherCommand is never used here: the launcher is Linux's.
func launcherCommand(ctx context.Context, launcher string, args []string) *exec.Cmd {
	return exec.CommandContext(ctx, launcher, args...)
}
