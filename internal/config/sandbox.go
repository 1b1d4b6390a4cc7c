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
	if err := checkSandboxPaths(s.Writable); err != nil {
		return BadValue(err.Error(), "sandbox", "writable")
	}
	if err := checkSandboxPaths(s.Readable); err != nil {
		return BadValue(err.Error(), "sandbox", "readable")
	}
	return nil
}

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
