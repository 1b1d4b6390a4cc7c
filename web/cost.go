package web

// Cost is what a plan's sessions cost.
//
// COSTS (issue 38): when this page was written the ledger had no usage or
// cost event kind, so nothing fills a Cost and Page.Cost stays nil; the
// page says "not recorded" in the header and in each work package. When
// the spend issue lands its kind, fold it in Read (read.go) beside the
// session events and sum it here, by session, then by work package
// through the dispatches.
type Cost struct {
	// Total and ByWP are in the unit the usage kind records.
	Total string
	ByWP  map[string]string
}

// CostOf is the cost of wp, or "" when none is recorded.
func (c *Cost) CostOf(wp string) string {
	if c == nil {
		return ""
	}
	return c.ByWP[wp]
}
