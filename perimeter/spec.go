// Package perimeter holds what decides which paths a work package owns:
// the glob matcher the plan checks and verify use, and the wire form in
// which dispatch hands a WP's perimeter to an adapter. Both sides import
// it, so what an adapter refuses while the agent writes and what verify
// flags afterwards never disagree. It imports nothing heavy: an adapter
// binary that links it links no ledger.
package perimeter

// Env carries a work package's perimeter to the adapter. Dispatch sets it
// for each WP's session; a plain `sessions start` has none, and the
// perimeter is then the whole worktree.
const Env = "AGENTPROTO_PERIMETER"

// Spec is the JSON form of Env: the globs the WP owns and the globs it
// must not touch although they may match (shared files, other WPs'
// perimeters) — the same rule verify applies afterwards.
type Spec struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny,omitempty"`
}
