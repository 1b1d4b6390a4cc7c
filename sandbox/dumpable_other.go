//go:build !linux

package sandbox

// Undumpable does nothing here. macOS has no such switch: its debugger
// rules keep another process's memory closed, but `ps -E` still shows a
// same-user process's environment.
func Undumpable() error { return nil }
