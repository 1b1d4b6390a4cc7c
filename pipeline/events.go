package pipeline

import (
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/judge"
)

// Ledger event kinds owned by the pipeline.
const (
	KindDispatched   = "wp_dispatched"
	KindVerified     = "wp_verified"
	KindCheckpointed = "wp_checkpointed"
	KindConsolidated = "plan_consolidated"
	KindReviewed     = "plan_reviewed"
	KindE2E          = "plan_e2e"
	KindPR           = "pr_opened"
)

// owner records the pipeline kinds; no other package can.
var owner = gitstore.NewOwner("pipeline")

// The typed kinds. Their data is made of what agents and commands printed,
// so secrets in it are scrubbed where a user's own append is refused. They
// are sealed: the pipeline trusts only what it wrote (trust.go).
var (
	dispatchedKind   = gitstore.Declare[Dispatch](owner, KindDispatched, gitstore.Scrubbed(), gitstore.Sealed())
	verifiedKind     = gitstore.Declare[Verification](owner, KindVerified, gitstore.Scrubbed(), gitstore.Sealed())
	checkpointedKind = gitstore.Declare[Checkpoint](owner, KindCheckpointed, gitstore.Scrubbed(), gitstore.Sealed())
	consolidatedKind = gitstore.Declare[Consolidation](owner, KindConsolidated, gitstore.Scrubbed(), gitstore.Sealed())
	reviewedKind     = gitstore.Declare[ReviewResult](owner, KindReviewed, gitstore.Scrubbed(), gitstore.Sealed())
	e2eKind          = gitstore.Declare[E2EResult](owner, KindE2E, gitstore.Scrubbed(), gitstore.Sealed())
	prKind           = gitstore.Declare[PRResult](owner, KindPR, gitstore.Scrubbed(), gitstore.Sealed())
	fallbackKind     = gitstore.Declare[Fallback](owner, KindFallback, gitstore.Scrubbed(), gitstore.Sealed())
	// What the user accepted names paths of their own checkout.
	outsideAcceptedKind = gitstore.Declare[OutsideAccepted](owner, KindOutsideAccepted, gitstore.Scrubbed(), gitstore.Sealed())
)

// Dispatch is the data of a wp_dispatched event.
type Dispatch struct {
	Project  string `json:"project"`
	WP       string `json:"wp"`
	Worktree string `json:"worktree"`
	Session  string `json:"session"`
	Adapter  string `json:"adapter"`
	Model    string `json:"model,omitempty"`
	Profile  string `json:"profile,omitempty"`
	Brief    string `json:"brief_sha256"`
	Attempt  int    `json:"attempt"`
	// Base is the commit the WP's worktree started from: the frozen base,
	// or the checkpointed state of what the WP depends on.
	Base string `json:"base,omitempty"`
	// Outside is the SHA-256 of the snapshot of what lies outside the
	// worktree, taken before the session started (see outside.go).
	Outside string `json:"outside_sha256,omitempty"`
	// Siblings is the SHA-256 of the snapshot of the other WPs' worktrees
	// and branches and of the ledger ref, taken as the session started
	// (see siblings.go).
	Siblings string `json:"siblings_sha256,omitempty"`
}

// Verification is the data of a wp_verified event and verify's JSON.
type Verification struct {
	Project  string `json:"project"`
	WP       string `json:"wp"`
	Worktree string `json:"worktree"`
	Head     string `json:"head"`
	Base     string `json:"base,omitempty"`
	// Tree is the id of the tree of the whole verified state, untracked
	// files included: checkpoint, pre-push and consolidate accept only it.
	Tree string `json:"tree,omitempty"`
	// Index is the SHA-256 of the index that built Tree, kept under the
	// common dir for checkpoint (verifiedindex.go); empty when none was.
	Index      string     `json:"index,omitempty"`
	Changed    []string   `json:"changed"`
	OutOfScope []string   `json:"out_of_scope"`
	Gate       judge.Gate `json:"gate"`
	Report     *Report    `json:"report,omitempty"`
	Findings   []string   `json:"findings,omitempty"`
	// Unattributed are changes outside the worktree that this WP is not
	// shown to have made (unattributed): they fail the wave, not the WP.
	Unattributed []string `json:"unattributed,omitempty"`
	Verdict      string   `json:"verdict"`
}

// Checkpoint is the data of a wp_checkpointed event.
type Checkpoint struct {
	Project string   `json:"project"`
	WP      string   `json:"wp"`
	Commit  string   `json:"commit"`
	Paths   []string `json:"paths"`
	Tree    string   `json:"tree,omitempty"` // the verified tree the commit holds
}

// DecodeEvent decodes a pipeline event through its declared kind: a
// *Dispatch, *Verification, *Checkpoint, *Fallback, *OutsideAccepted,
// *Consolidation, *ReviewResult, *E2EResult or *PRResult. ok is false for
// an event of another kind.
func DecodeEvent(e *gitstore.Event) (v any, ok bool, err error) {
	switch e.Kind {
	case KindDispatched:
		return decodeTo(dispatchedKind, e)
	case KindVerified:
		return decodeTo(verifiedKind, e)
	case KindCheckpointed:
		return decodeTo(checkpointedKind, e)
	case KindFallback:
		return decodeTo(fallbackKind, e)
	case KindOutsideAccepted:
		return decodeTo(outsideAcceptedKind, e)
	case KindConsolidated:
		return decodeTo(consolidatedKind, e)
	case KindReviewed:
		return decodeTo(reviewedKind, e)
	case KindE2E:
		return decodeTo(e2eKind, e)
	case KindPR:
		return decodeTo(prKind, e)
	}
	return nil, false, nil
}

func decodeTo[T any](k gitstore.Kind[T], e *gitstore.Event) (any, bool, error) {
	v, err := k.Decode(e)
	if err != nil {
		return nil, true, err
	}
	return &v, true, nil
}
