// Package names checks the identifiers agentproto makes paths, refs and
// branch names of: a plan's name, a worktree's slug, a ledger writer's id,
// a work package's id.
//
// Written out rather than as regular expressions: nearly every command
// checks one, and compiling the patterns was 1.7 ms of the 13 ms of CPU a
// checkpoint spends in its own process (go tool pprof over 80 runs of
// git agentproto checkpoint), where these loops take nanoseconds.
package names

// Dashed reports whether s is lo to hi bytes of lower-case ASCII
// letters, digits and dashes, not starting with a dash: what
// ^[a-z0-9][a-z0-9-]{lo-1,hi-1}$ matches.
func Dashed(s string, lo, hi int) bool {
	if len(s) < max(lo, 1) || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0:
		default:
			return false
		}
	}
	return true
}

// WP reports whether id is a work package id: WP and one to three digits,
// what ^WP[0-9]{1,3}$ matches.
func WP(id string) bool {
	if len(id) < 3 || len(id) > 5 || id[:2] != "WP" {
		return false
	}
	for i := 2; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return false
		}
	}
	return true
}
