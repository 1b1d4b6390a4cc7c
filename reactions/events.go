// Package reactions watches a pull request agentproto opened and reacts
// to what happens on it: a failed check, a review asking for changes, a
// comment on a line go back to the work package whose perimeter owns the
// file, whose agent gets a bounded prompt as its next turn; the loop then
// runs through the pipeline — verify, checkpoint, consolidate, review —
// and the PR branch gets a new commit, never a force push and never a
// merge. What cannot be routed, or is still failing when the retries run
// out, waits for the supervisor. Every observation and every reaction is
// a ledger event, idempotent by GitHub's ids.
package reactions

import (
	"fmt"

	"github.com/agentproto/agentproto/gitstore"
)

// Ledger event kinds owned by reactions.
const (
	KindPRState     = "pr_state"
	KindCheckFailed = "pr_check_failed"
	KindCheckPassed = "pr_check_passed"
	KindReview      = "pr_review_submitted"
	KindComment     = "pr_comment"
	KindReaction    = "pr_reaction"
)

// owner records the reactions kinds; no other package can.
var owner = gitstore.NewOwner("reactions")

// What GitHub returns is written by people and CI logs: secrets in it are
// scrubbed where a user's own append would be refused.
var (
	prStateKind  = gitstore.Declare[PRState](owner, KindPRState, gitstore.Scrubbed())
	failedKind   = gitstore.Declare[Check](owner, KindCheckFailed, gitstore.Scrubbed())
	passedKind   = gitstore.Declare[Check](owner, KindCheckPassed, gitstore.Scrubbed())
	reviewKind   = gitstore.Declare[Review](owner, KindReview, gitstore.Scrubbed())
	commentKind  = gitstore.Declare[Comment](owner, KindComment, gitstore.Scrubbed())
	reactionKind = gitstore.Declare[Reaction](owner, KindReaction, gitstore.Scrubbed())
)

// PRState is the pull request as one poll saw it: recorded when its head
// or state changes.
type PRState struct {
	Project string `json:"project"`
	Repo    string `json:"repo"`
	Number  int    `json:"number"`
	Branch  string `json:"branch"`
	Head    string `json:"head"`
	State   string `json:"state"` // open, closed, merged
	URL     string `json:"url,omitempty"`
}

// Note is a check's annotation: a file, a line and what is wrong there.
type Note struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// Check is a check run or a commit status that completed on the head.
type Check struct {
	Project    string `json:"project"`
	Number     int    `json:"number"`
	Head       string `json:"head"`
	Source     string `json:"source"` // check_run, status
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Conclusion string `json:"conclusion"`
	URL        string `json:"url,omitempty"`
	Notes      []Note `json:"notes,omitempty"`
	// Log is the failing part of the check's output, bounded.
	Log string `json:"log,omitempty"`
}

// Review is a submitted review.
type Review struct {
	Project string `json:"project"`
	Number  int    `json:"number"`
	ID      int64  `json:"id"`
	User    string `json:"user"`
	State   string `json:"state"`
	Body    string `json:"body,omitempty"`
	Commit  string `json:"commit,omitempty"`
}

// Comment is a review comment on a line of the diff.
type Comment struct {
	Project   string `json:"project"`
	Number    int    `json:"number"`
	ID        int64  `json:"id"`
	Review    int64  `json:"review,omitempty"`
	InReplyTo int64  `json:"in_reply_to,omitempty"`
	User      string `json:"user"`
	Path      string `json:"path"`
	Line      int    `json:"line,omitempty"`
	Body      string `json:"body"`
	URL       string `json:"url,omitempty"`
}

// Outcomes of a reaction.
const (
	Sent      = "sent"      // the owner's turn was asked for
	Pushed    = "pushed"    // the loop closed: a new commit is on the PR branch
	Failed    = "failed"    // the turn, a pipeline step or the push did not go through
	Escalated = "escalated" // it waits for the supervisor
	Notified  = "notified"
	// Answered (answer.go): the supervisor answered an escalation.
)

// Reaction is one thing done about an item: a turn sent to its owner and
// how it ended, an escalation, a notification.
type Reaction struct {
	Project string `json:"project"`
	Number  int    `json:"number"`
	// Item is what is reacted to: check:NAME, comment:ID, review:ID,
	// green:HEAD.
	Item    string   `json:"item"`
	Trigger string   `json:"trigger"`
	Action  string   `json:"action"`
	WPs     []string `json:"wps,omitempty"`
	Attempt int      `json:"attempt,omitempty"`
	Head    string   `json:"head"` // the PR head it was about
	Outcome string   `json:"outcome"`
	Step    string   `json:"step,omitempty"` // where a failed one stopped
	Commit  string   `json:"commit,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	// Tried says, on an escalation, what was done before.
	Tried []string `json:"tried,omitempty"`
	// Answer is the supervisor's answer to an escalation: retry,
	// dismiss, or the work package that takes the item.
	Answer string `json:"answer,omitempty"`
}

// EventEscalated is the event [policies] notify is run with when an item
// escalates; a notify reaction runs it with its trigger's name
// (approved-and-green).
const EventEscalated = "pr-escalated"

// Notice is what [policies] notify is told: its environment carries each
// field (AGENTPROTO_EVENT, AGENTPROTO_PROJECT, AGENTPROTO_PR, ...).
type Notice struct {
	Event   string
	Project string
	Number  int
	Item    string
	Trigger string
	URL     string
	Message string
}

func obsID(project string, number int, what string, args ...any) string {
	return fmt.Sprintf("reactions/%s/%d/", project, number) + fmt.Sprintf(what, args...)
}
