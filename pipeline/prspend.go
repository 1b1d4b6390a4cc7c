package pipeline

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/spend"
)

// writeSpend adds what the plan cost to a pull request's body: per work
// package, the executors together, the supervisor's own reports, and the
// whole. Unknown turns are said, never counted as nothing.
func writeSpend(b *strings.Builder, l gitstore.Store, plan string) {
	use, _, err := spend.Read(l)
	if err != nil {
		return
	}
	p := use.Plan(plan)
	if p == nil {
		return
	}
	b.WriteString("\n### Spend\n\n| | turns | tokens | cost |\n|---|---|---|---|\n")
	wps := make([]string, 0, len(p.WPs))
	for wp := range p.WPs {
		wps = append(wps, wp)
	}
	sort.Strings(wps)
	row := func(name string, t spend.Total) {
		if t.Turns == 0 {
			return
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s |\n", name, t.Turns, spend.Count(t.Tokens()), t)
	}
	for _, wp := range wps {
		row(wp, p.WPs[wp])
	}
	row("executors", p.Executors)
	row("supervisor", p.Supervisor)
	row("**plan**", p.Total)
}
