package sessions

import (
	"slices"
	"strings"

	"github.com/agentproto/agentproto/internal/secrets"
)

// allowedEnv names the variables of the caller's environment an adapter
// gets; the rest of the daemon's or caller's environment stays out.
var allowedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TERM", "SHELL", "TZ"}

// AdapterEnv keeps of env what an adapter is given: allowedEnv,
// AGENTPROTO_*, the extra names (a profile's key variable) and what pass
// names ([sessions] pass_env: NAME or PREFIX*). The client sends no more
// than this to the daemon, and the daemon passes no more on.
func AdapterEnv(env []string, extra, pass []string) []string {
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENTPROTO_") || slices.Contains(allowedEnv, k) || slices.Contains(extra, k) || passed(k, v, pass) {
			out = append(out, kv)
		}
	}
	return out
}

// passed reports whether pass names the variable k and it holds no
// secret: not one of our tokens, not a secret-shaped name (a PREFIX*
// reaches names the configuration check never saw), not a value that
// holds a secret this process knows or a credential's shape.
func passed(k, v string, pass []string) bool {
	named := false
	for _, p := range pass {
		if pre, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(k, pre) || p == k {
			named = true
			break
		}
	}
	if !named || slices.Contains(secrets.WellKnown, k) || secrets.LooksSecret(k) {
		return false
	}
	return len(secrets.Find(v)) == 0
}

// SessionEnv names, in the environment of a session's agent, the session
// it runs in: what it starts from there can find its parent.
const SessionEnv = "AGENTPROTO_SESSION"
