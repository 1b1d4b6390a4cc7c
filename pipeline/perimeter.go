package pipeline

import (
	"encoding/json"
	"strings"

	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/plugins/adapters/acp"
)

// withPerimeter gives a WP's session its perimeter in the environment, so
// an adapter that sees the agent's writes as they happen (acp) refuses
// those verify would flag later: the WP's own globs are allowed, shared
// files and the other WPs' globs are not. A value the caller had is
// replaced, never merged.
func withPerimeter(env []string, p *plans.Project, wp plans.WP) []string {
	spec := acp.PerimeterSpec{Allow: append([]string{}, wp.Owns...), Deny: append([]string{}, p.Plan.Shared...)}
	for _, other := range p.Plan.WPs {
		if other.ID != wp.ID {
			spec.Deny = append(spec.Deny, other.Owns...)
		}
	}
	b, _ := json.Marshal(spec) // strings only: cannot fail
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, acp.PerimeterEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, acp.PerimeterEnv+"="+string(b))
}
