// Package sandbox confines a process tree the agents control: the kernel
// (Landlock on Linux) lets it write only where its Policy says, read only
// the hierarchies it lists, and neither signal nor ptrace any process
// outside it. A small launcher (agentproto-sandbox) holds the tree: it
// stays outside the confinement, so nothing inside can kill it, and when
// the tree's first process ends or the launcher is told to stop, every
// process left inside — double-forked orphans included — is killed.
//
// The shape is the usual one for confining another program: a launcher
// that restricts itself, then execs the target (codex's Linux sandbox does
// the same). Landlock is unprivileged, inherited across fork and exec and
// cannot be lifted, so an agent that sandboxes itself inside ours only
// narrows what it has.
package sandbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Mode is the [sandbox] mode of agentproto.toml.
type Mode string

const (
	// ModeAuto confines where the kernel can, and otherwise runs
	// unconfined with a warning, recording "none".
	ModeAuto Mode = "auto"
	// ModeRequired refuses to start what it cannot confine.
	ModeRequired Mode = "required"
	// ModeOff never confines.
	ModeOff Mode = "off"
)

// ParseMode reads a configured mode; "" is auto.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeAuto:
		return ModeAuto, nil
	case ModeRequired, ModeOff:
		return Mode(s), nil
	}
	return "", fmt.Errorf("sandbox mode %q is not one of auto, required, off", s)
}

// What a session record says of its confinement.
const (
	// KindLandlock: the session ran under a Landlock domain.
	KindLandlock = "landlock"
	// KindNone: the session ran unconfined.
	KindNone = "none"
)

// Policy is what a confined tree may touch. Paths are absolute; a path
// that does not exist when the tree starts is skipped (Landlock rules
// hold open files, so a path made later is not covered).
type Policy struct {
	// Read lists hierarchies (or single files) the tree may read and
	// execute.
	Read []string `json:"read,omitempty"`
	// Write lists hierarchies (or single files) it may also create,
	// write, rename and remove in.
	Write []string `json:"write,omitempty"`
	// Devices lists device files and directories it may read, write and
	// use ioctl on (terminals).
	Devices []string `json:"devices,omitempty"`
	// Hold, alone, asks the launcher to hold the tree without confining
	// it: the lifetime without the sandbox, where the kernel has none.
	Hold bool `json:"hold,omitempty"`
}

// Encode is the policy as the launcher's argument.
func (p Policy) Encode() string {
	b, _ := json.Marshal(p)
	return string(b)
}

// DecodePolicy reads a launcher's policy argument.
func DecodePolicy(s string) (Policy, error) {
	var p Policy
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("sandbox policy: %w", err)
	}
	for _, list := range [][]string{p.Read, p.Write, p.Devices} {
		for _, path := range list {
			if !strings.HasPrefix(path, "/") {
				return Policy{}, fmt.Errorf("sandbox policy: %q is not an absolute path", path)
			}
		}
	}
	return p, nil
}

// Writable reports whether path lies in one of the policy's writable
// hierarchies (by name: symlinks are not followed).
func (p Policy) Writable(path string) bool {
	return slices.ContainsFunc(p.Write, func(w string) bool { return within(w, path) })
}

func within(dir, path string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}
