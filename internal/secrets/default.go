package secrets

import (
	"os"
	"sync"
)

// The process's set: built on first use from its environment and the
// policy the configuration gives. Every write path and every command we
// run asks the same set, so a secret the tool knows is known everywhere,
// without threading it through each caller.
var (
	defaultMu  sync.Mutex
	loadPolicy func() Policy
	defaultSet *Set
)

// Configure sets how the process's policy is read (the binary reads it
// from agentproto.toml). load runs once, on first use of the default set.
func Configure(load func() Policy) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	loadPolicy, defaultSet = load, nil
}

// Default returns the process's set.
func Default() *Set {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultSet == nil {
		var p Policy
		if loadPolicy != nil {
			p = loadPolicy()
		}
		defaultSet = New(os.Environ(), p)
	}
	return defaultSet
}

// Find is Default().Find.
func Find(text string) []Finding { return Default().Find(text) }

// Scrub is Default().Scrub.
func Scrub(text string) string { return Default().Scrub(text) }

// ScrubBytes is Default().ScrubBytes.
func ScrubBytes(b []byte) []byte { return Default().ScrubBytes(b) }

// Refuse is Default().Refuse.
func Refuse(where, text string) error { return Default().Refuse(where, text) }

// RefuseJSON is Default().RefuseJSON.
func RefuseJSON(where string, doc []byte) error { return Default().RefuseJSON(where, doc) }

// ChildEnv is Default().ChildEnv(os.Environ()).
func ChildEnv() []string { return Default().ChildEnv(os.Environ()) }

// ScrubJSON is Default().ScrubJSON.
func ScrubJSON(doc []byte) []byte { return Default().ScrubJSON(doc) }

// ScrubTail is Default().ScrubTail.
func ScrubTail(b []byte, max int) ([]byte, bool) { return Default().ScrubTail(b, max) }
