package sessions

import (
	"slices"
	"strings"
)

// allowedEnv names the variables of the caller's environment an adapter
// gets; the rest of the daemon's or caller's environment stays out.
var allowedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TERM", "SHELL", "TZ"}

// AdapterEnv keeps of env what an adapter is given: allowedEnv,
// AGENTPROTO_* and the extra names (a profile's key variable). The client
// sends no more than this to the daemon, and the daemon passes no more on.
func AdapterEnv(env []string, extra []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENTPROTO_") || slices.Contains(allowedEnv, k) || slices.Contains(extra, k) {
			out = append(out, kv)
		}
	}
	return out
}

// SessionEnv names, in the environment of a session's agent, the session
// it runs in: what it starts from there can find its parent.
const SessionEnv = "AGENTPROTO_SESSION"
