package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// A Landlock rule opens everything below its path, and no rule can close
// a part of it again. So a read rule derived from where a program lives —
// a PATH entry, a bin's parent, the directory of a script an option or a
// gate names, the adapter's directory — must not hold HOME (gh's
// hosts.yml, ~/.ssh, the ledger's seal keys) or the temporary and runtime
// directories (the sessions daemon's control token, other sessions'
// files): a PATH of /srv/x/bin with HOME at /srv/x/home opened all of HOME.
// Such a rule is left out; a file it was derived from is opened alone.

// secretHolders are the places derived read rules must not hold.
func secretHolders(home string, more ...string) []string {
	places := append([]string{home, os.TempDir(), os.Getenv("XDG_RUNTIME_DIR")}, more...)
	var out []string
	for _, p := range places {
		if p != "" && filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// holds reports whether rule is one of places or an ancestor of one.
func holds(rule string, places []string) bool {
	rule = filepath.Clean(rule)
	for _, p := range places {
		if rule == p || rule == "/" || strings.HasPrefix(p, rule+"/") {
			return true
		}
	}
	return false
}

// spare leaves out the rules that hold one of places.
func spare(rules, places []string) []string {
	var out []string
	for _, r := range rules {
		if !holds(r, places) {
			out = append(out, r)
		}
	}
	return out
}

// dirOrFile is the directory of file as a read rule, or file alone when
// its directory holds one of places.
func dirOrFile(file string, places []string) string {
	if dir := filepath.Dir(file); !holds(dir, places) {
		return dir
	}
	return file
}
