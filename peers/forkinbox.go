package peers

import "sort"

// ForkRow is one fork branch as the supervisor pulls it from its packet:
// an inbox row, not a stream of the branch's events.
type ForkRow struct {
	Branch      string `json:"branch"`
	State       string `json:"state"`
	SourceAgent string `json:"source_agent"`
	Executor    string `json:"executor_agent"`
	// ResultRef is the result a held branch waits with, for select or
	// discard.
	ResultRef string `json:"result_ref,omitempty"`
	Since     string `json:"since"` // when it entered State
}

// forkInbox keeps the rows of branches a goal's agents started or run,
// oldest change first.
func forkInbox(rows []ForkRow, agents []string) []ForkRow {
	out := []ForkRow{}
	for _, r := range rows {
		if contains(agents, r.SourceAgent) || contains(agents, r.Executor) {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Since != out[j].Since {
			return out[i].Since < out[j].Since
		}
		return out[i].Branch < out[j].Branch
	})
	return out
}
