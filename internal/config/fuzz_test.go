package config

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/repopath"
)

// FuzzConfigParse: any text either parses into a configuration that keeps
// the documented invariants, or fails with one Invalid error that names the
// file; nothing panics.
// acceptedPluginName is what a plugin's name may be, checked here apart
// from the loop validate uses.
var acceptedPluginName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

func FuzzConfigParse(f *testing.F) {
	for _, s := range []string{
		"", "[ledger]\npack_threshold = 3\n", "[worktree]\ncopy = [\"../x\"]\n", "[worktree]\ncopy = [\".git/config\"]\n",
		"[plugins.x]\npath = \"bin/x\"\nsha256 = \"zz\"\n", "[profiles.p]\nadapter = \"a\"\nauth = \"api-key\"\n",
		"[dispatch]\nfallback = [\"nope\"]\n", "[[x]]\n", "a.b.c = 1\n", "[sessions]\nidle_exit = \"10\"\n",
		"[plans]\ncontract_block = \"/etc/passwd\"\n", "[worktree]\nenv = { \"A=B\" = \"1\" }\n", "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		cfg, err := Parse(text, "x.toml")
		if err != nil {
			if fault.KindOf(err) != fault.Invalid {
				t.Fatalf("error of kind %v: %v", fault.KindOf(err), err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "x.toml") || (utf8.Valid(text) && !utf8.ValidString(msg)) {
				t.Fatalf("error does not name the file cleanly: %q", msg)
			}
			return
		}
		if cfg.Ledger.PackThreshold < 1 || cfg.Dispatch.MaxParallel < 1 || cfg.Plans.AgentInstructions == "" {
			t.Fatalf("invariants broken: %+v", cfg)
		}
		for _, p := range cfg.Worktree.Copy {
			if _, err := repopath.Clean(p); err != nil {
				t.Fatalf("copy path %q accepted: %v", p, err)
			}
		}
		for name, p := range cfg.Plugins {
			if !acceptedPluginName.MatchString(name) || (p.SHA256 != "" && !sha256Hex.MatchString(p.SHA256)) {
				t.Fatalf("plugin %q accepted: %+v", name, p)
			}
		}
		for _, fb := range cfg.Dispatch.Fallback {
			if _, ok := cfg.Profiles[fb]; !ok {
				t.Fatalf("fallback %q names no profile", fb)
			}
		}
	})
}
