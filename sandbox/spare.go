package sandbox

import (
	"fmt"
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

// deniedWrites are the places a configured writable path may neither be
// in nor hold (the repository's git dir and main checkout, the runtime
// directory, gh's configuration and ~/.ssh), and those it may be in but
// not hold (HOME, /).
func deniedWrites(s SessionSpec) (closed, roots []string) {
	for _, d := range []string{s.CommonDir, s.WorkTree, s.Runtime} {
		if d != "" {
			closed = append(closed, filepath.Clean(d))
		}
	}
	roots = []string{"/"}
	if s.Home != "" {
		closed = append(closed, filepath.Join(s.Home, ".config", "gh"), filepath.Join(s.Home, ".ssh"))
		roots = append(roots, filepath.Clean(s.Home))
	}
	return closed, roots
}

func checkAdded(path string, s SessionSpec, what string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("sandbox: %s path %q is not absolute (use ~/ for HOME)", what, path)
	}
	// A path in one of these, or one that holds it, would open it:
	// Landlock cannot close a part of an opened hierarchy again.
	private := []string{s.Runtime}
	if s.Home != "" {
		private = append(private, filepath.Join(s.Home, ".config", "gh"), filepath.Join(s.Home, ".ssh"), filepath.Join(s.Home, ".local", "state", "agentproto"))
	}
	for _, p := range private {
		if p != "" && (within(filepath.Clean(path), p) || within(p, filepath.Clean(path))) {
			return fmt.Errorf("sandbox: %s path %s is in or holds %s, private to agentproto, gh or ssh", what, path, p)
		}
	}
	return nil
}
