// Package secrets keeps credentials out of what agentproto records (the
// ledger is pushed to every clone) and out of the commands it runs for the
// user (gates, e2e commands, worktree hooks).
//
// It knows two kinds of secret: values it can name (the variables holding
// the tool's own tokens, every profile's key_env, and any variable whose
// name says it holds a secret), looked for verbatim and in the encodings a
// careless or hostile writer would use; and credential shapes (a GitHub
// token, an AWS key...) whose value it has never seen, looked for as
// written and inside base64 or hex.
package secrets

import (
	"sort"
	"strings"
)

// WellKnown are the variables holding the credentials of agentproto itself
// and of the agent CLIs it runs. They are secret whatever their name.
var WellKnown = []string{
	"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN",
	"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENROUTER_API_KEY",
}

// MinLen is the shortest value taken as a secret: "1" or "true" in a
// variable named X_TOKEN would otherwise refuse almost every text.
const MinLen = 8

// Policy is what the configuration adds to what the environment says.
type Policy struct {
	// SecretEnv names more variables whose values are secrets (the
	// profiles' key_env). They are never passed to a command we run.
	SecretEnv []string
	// PassEnv names more variables passed to the commands we run: NAME, or
	// PREFIX* for every variable starting with PREFIX. A variable holding
	// one of our own tokens is never passed.
	PassEnv []string
}

// Set is the secrets known to this process and what it may pass on.
type Set struct {
	policy Policy
	// own are the variables holding our own tokens: never passed on.
	own map[string]bool
	// secret are all the variables taken as secret (own and by name).
	secret  map[string]bool
	needles []needle
}

// needle is one form of a known value, longest first in Set.needles so the
// widest match wins where forms overlap.
type needle struct {
	text     string
	name     string // the variable, never its value
	encoding string // "" for the value as is
}

// New returns the set of secrets of environ ("NAME=value" entries) under p.
func New(environ []string, p Policy) *Set {
	s := &Set{policy: p, own: map[string]bool{}, secret: map[string]bool{}}
	for _, n := range WellKnown {
		s.own[n] = true
	}
	for _, n := range p.SecretEnv {
		if n != "" {
			s.own[n] = true
		}
	}
	seen := map[string]bool{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case s.own[name]:
		case LooksSecret(name) && !strings.HasPrefix(value, "/"):
			// A path in SSH_KEY names where a secret is, and paths are
			// everywhere in logs.
		default:
			continue
		}
		s.secret[name] = true
		if len(value) < MinLen {
			continue
		}
		for _, f := range forms(value) {
			// A value inside the marker would never scrub away.
			if strings.Contains(redactedAll, f.text) {
				continue
			}
			if !seen[f.text+"\x00"+name] {
				seen[f.text+"\x00"+name] = true
				s.needles = append(s.needles, needle{text: f.text, name: name, encoding: f.encoding})
			}
		}
	}
	sort.SliceStable(s.needles, func(i, j int) bool { return len(s.needles[i].text) > len(s.needles[j].text) })
	return s
}

// LooksSecret reports whether a variable's name says it holds a secret:
// *_TOKEN, *_KEY, *_APIKEY, *_SECRET, *_PAT, *_CREDENTIAL, *PASSWORD*,
// *PASSWD*.
func LooksSecret(name string) bool {
	n := strings.ToUpper(name)
	for _, suf := range []string{"_TOKEN", "_KEY", "_APIKEY", "_SECRET", "_PAT", "_CREDENTIAL"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return n == "TOKEN" || n == "SECRET" || strings.Contains(n, "PASSWORD") || strings.Contains(n, "PASSWD")
}

// Names returns the variables whose values the set holds, sorted.
func (s *Set) Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range s.needles {
		if !seen[n.name] {
			seen[n.name] = true
			out = append(out, n.name)
		}
	}
	sort.Strings(out)
	return out
}
