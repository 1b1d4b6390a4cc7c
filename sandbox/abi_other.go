//go:build !linux

package sandbox

// Landlock is Linux's; elsewhere there is nothing to confine with.
func kernelABI() int { return 0 }
