package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sandbox configures the kernel sandbox around agent-controlled
// processes (package sandbox).
type Sandbox struct {
	// Mode: "auto" (default) confines where the kernel can and warns
	// where it cannot; "required" refuses to start unconfined; "off".
	Mode string `toml:"mode" json:"mode,omitempty"`
	// Perimeter: "narrow" (default) lets the agent of a work package write
	// only the directories its perimeter's globs lie in, where each has a
	// directory below the worktree's root; "worktree" lets it write all
	// of its worktree (verify still judges each file either way).
	Perimeter string `toml:"perimeter" json:"perimeter,omitempty"`
	// Writable adds paths agents may write (absolute or ~/): caches and
	// state directories the defaults do not name.
	Writable []string `toml:"writable" json:"writable,omitempty"`
	// Readable adds paths agents may read.
	Readable []string `toml:"readable" json:"readable,omitempty"`
}

func (s Sandbox) validate() error {
	switch s.Mode {
	case "", "auto", "required", "off":
	default:
		return BadValue(fmt.Sprintf("%q is not auto, required or off", s.Mode), "sandbox", "mode")
	}
	switch s.Perimeter {
	case "", "narrow", "worktree":
	default:
		return BadValue(fmt.Sprintf("%q is not narrow or worktree", s.Perimeter), "sandbox", "perimeter")
	}
	if err := checkSandboxPaths(s.Writable); err != nil {
		return BadValue(err.Error(), "sandbox", "writable")
	}
	if err := checkSandboxPaths(s.Readable); err != nil {
		return BadValue(err.Error(), "sandbox", "readable")
	}
	return nil
}

// NarrowPerimeter says whether a work package's session writes only its
// perimeter's directories of its worktree.
func (s Sandbox) NarrowPerimeter() bool { return s.Perimeter != "worktree" }

func checkSandboxPaths(paths []string) error {
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~/") {
			return fmt.Errorf("%q must be an absolute path or start with ~/", p)
		}
	}
	return nil
}

// ExpandHome resolves a leading ~/ against home; other paths are only
// cleaned.
func ExpandHome(path, home string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		return filepath.Join(home, rest)
	}
	return filepath.Clean(path)
}
