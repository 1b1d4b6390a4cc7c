package daemon

import (
	"sort"
	"strings"

	"github.com/agentproto/agentproto/sessions"
)

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

func withSessionEnv(env []string, id string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, sessions.SessionEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, sessions.SessionEnv+"="+id)
}
