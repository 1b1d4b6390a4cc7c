//go:build !linux

package sandbox

import "errors"

var errNoLandlock = errors.New("the sandbox needs Linux's Landlock")

func hold(string, []string) int { return fail("sandbox: %v", errNoLandlock) }

func confineExec(Policy, []string) error { return errNoLandlock }

// Confine is not available here.
func Confine(Policy) error { return errNoLandlock }
