package worktree

import (
	"fmt"
	"time"

	"github.com/agentproto/agentproto/gitstore"
)

// Ledger event kinds of the worktree lifecycle, written by Manager.
const (
	KindProvisioned = "worktree_provisioned"
	KindRemoved     = "worktree_removed"
	KindArchived    = "worktree_archived"
	KindRestored    = "worktree_restored"
)

// owner records the worktree kinds; no other package can. Hook logs are
// what scripts printed: scrubbed of secrets.
var owner = gitstore.NewOwner("worktree")

var (
	_ = gitstore.Declare[Provisioned](owner, KindProvisioned, gitstore.Scrubbed())
	_ = gitstore.Declare[Removed](owner, KindRemoved, gitstore.Scrubbed())
	_ = gitstore.Declare[Archived](owner, KindArchived, gitstore.Scrubbed())
	_ = gitstore.Declare[Restored](owner, KindRestored, gitstore.Scrubbed())
)

// Provisioned is the payload of a worktree_provisioned event.
type Provisioned struct {
	Slug           string       `json:"slug"`
	Path           string       `json:"path"`
	Branch         string       `json:"branch"`
	Base           string       `json:"base"`
	BaseCommit     string       `json:"base_commit"`
	Head           string       `json:"head"`
	Checkout       string       `json:"checkout"`
	CheckoutReason string       `json:"checkout_reason,omitempty"`
	Setup          *SetupRecord `json:"setup,omitempty"`
	Failure        string       `json:"failure,omitempty"`
	DurationMS     int64        `json:"duration_ms"`
	// By names what provisioned it when not `worktree new` (dispatch,
	// sessions start).
	By string `json:"by,omitempty"`
}

// SetupRecord is what the setup hooks of a new worktree did.
type SetupRecord struct {
	Commands []string `json:"commands"`
	Copied   []string `json:"copied"`
	// FromBase are the files the hooks ran in the base's version, not the
	// version the worktree's checkout (a checkpoint) holds.
	FromBase []string `json:"from_base,omitempty"`
	OK       bool     `json:"ok"`
}

// Removed is the payload of a worktree_removed event.
type Removed struct {
	Slug             string `json:"slug"`
	Path             string `json:"path"`
	Branch           string `json:"branch,omitempty"`
	DiscardModified  bool   `json:"discard_modified,omitempty"`
	DiscardUntracked bool   `json:"discard_untracked,omitempty"`
	// AbandonedByPid is the process of an interrupted worktree new whose
	// half-made worktree this was.
	AbandonedByPid int    `json:"abandoned_by_pid,omitempty"`
	By             string `json:"by,omitempty"`
}

// Archived is the payload of a worktree_archived event.
type Archived struct {
	Slug       string `json:"slug"`
	SalvageRef string `json:"salvage_ref"`
	Commit     string `json:"commit"`
	Head       string `json:"head"`
}

// Restored is the payload of a worktree_restored event.
type Restored struct {
	Slug       string `json:"slug"`
	SalvageRef string `json:"salvage_ref"`
	Path       string `json:"path"`
}

// eventID names one lifecycle step of one worktree; the time keeps
// repeated steps (new, rm, new again) apart.
func eventID(slug, what string, t time.Time) string {
	return fmt.Sprintf("worktree/%s/%s/%d", slug, what, t.UnixNano())
}
