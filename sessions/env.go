package sessions

import (
	"sort"
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
		if strings.HasPrefix(k, "AGENTPROTO_") || contains(allowedEnv, k) || contains(extra, k) {
			out = append(out, kv)
		}
	}
	return out
}

// envNames lists the names of env, sorted: what the daemon log says it
// received, never the values.
func envNames(env []string) string {
	names := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// SessionEnv names, in the environment of a session's agent, the session
// it runs in: what it starts from there can find its parent.
const SessionEnv = "AGENTPROTO_SESSION"

func withSessionEnv(env []string, id string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, SessionEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, SessionEnv+"="+id)
}
