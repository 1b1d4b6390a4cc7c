// Package pipeline is the supervisor's main job: dispatch work packages to
// executor sessions in their own worktrees, verify them on disk, checkpoint
// their in-perimeter changes, consolidate them as a single writer, review
// the result adversarially, run the end-to-end commands and open a pull
// request. Every step is a ledger event, so a run can stop anywhere and
// continue where it stopped.
package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/plans"
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

// Verdicts of verify.
const (
	Pass = "pass"
	Fail = "fail"
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
}

// Gate is one run of a gate command.
type Gate struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Duration string `json:"duration"`
	Log      string `json:"log"` // attachment name
	Piped    bool   `json:"piped,omitempty"`
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
	Tree       string   `json:"tree,omitempty"`
	Changed    []string `json:"changed"`
	OutOfScope []string `json:"out_of_scope"`
	Gate       Gate     `json:"gate"`
	Report     *Report  `json:"report,omitempty"`
	Findings   []string `json:"findings,omitempty"`
	Verdict    string   `json:"verdict"`
}

// Checkpoint is the data of a wp_checkpointed event.
type Checkpoint struct {
	Project string   `json:"project"`
	WP      string   `json:"wp"`
	Commit  string   `json:"commit"`
	Paths   []string `json:"paths"`
	Tree    string   `json:"tree,omitempty"` // the verified tree the commit holds
}

// State is what the ledger says about one plan's pipeline.
type State struct {
	Dispatches    map[string][]Dispatch   // by WP, oldest first
	Verifications map[string]Verification // latest, by WP
	Checkpoints   map[string]Checkpoint   // latest, by WP
	Consolidated  *Consolidation
	Review        *ReviewResult
	E2E           *E2EResult
	PR            *PRResult
}

// LastDispatch returns the latest dispatch of a WP, if any.
func (s *State) LastDispatch(wp string) (Dispatch, bool) {
	d := s.Dispatches[wp]
	if len(d) == 0 {
		return Dispatch{}, false
	}
	return d[len(d)-1], true
}

// Base returns the commit wp's worktree started from, as its latest
// dispatch that recorded one says; "" when none did.
func (s *State) Base(wp string) string {
	d := s.Dispatches[wp]
	for i := len(d) - 1; i >= 0; i-- {
		if d[i].Base != "" {
			return d[i].Base
		}
	}
	return ""
}

// Outside returns the hash of the outside snapshot wp's latest dispatch
// that took one recorded; "" when none did.
func (s *State) Outside(wp string) string {
	d := s.Dispatches[wp]
	for i := len(d) - 1; i >= 0; i-- {
		if d[i].Outside != "" {
			return d[i].Outside
		}
	}
	return ""
}

// Verified reports whether the latest verification of wp passed.
func (s *State) Verified(wp string) bool {
	v, ok := s.Verifications[wp]
	return ok && v.Verdict == Pass
}

// stateKinds are the event kinds ReadState projects.
var stateKinds = []string{KindDispatched, KindVerified, KindCheckpointed, KindConsolidated, KindReviewed, KindE2E, KindPR}

// ReadState reads the pipeline events of project from the ledger.
func ReadState(l *gitstore.Ledger, project string) (*State, error) {
	st := &State{Dispatches: map[string][]Dispatch{}, Verifications: map[string]Verification{}, Checkpoints: map[string]Checkpoint{}}
	q := gitstore.Query{Kinds: stateKinds, Reverse: true}
	err := l.Events(q, func(e *gitstore.Event) error {
		var head struct {
			Project string `json:"project"`
			WP      string `json:"wp"`
		}
		if json.Unmarshal(e.Data, &head) != nil || head.Project != project {
			return nil
		}
		switch e.Kind {
		case KindDispatched:
			var d Dispatch
			if json.Unmarshal(e.Data, &d) == nil {
				st.Dispatches[d.WP] = append(st.Dispatches[d.WP], d)
			}
		case KindVerified:
			var v Verification
			if json.Unmarshal(e.Data, &v) == nil {
				st.Verifications[v.WP] = v
			}
		case KindCheckpointed:
			var c Checkpoint
			if json.Unmarshal(e.Data, &c) == nil {
				st.Checkpoints[c.WP] = c
			}
		case KindConsolidated:
			var c Consolidation
			if json.Unmarshal(e.Data, &c) == nil {
				st.Consolidated = &c
			}
		case KindReviewed:
			var r ReviewResult
			if json.Unmarshal(e.Data, &r) == nil {
				st.Review = &r
			}
		case KindE2E:
			var r E2EResult
			if json.Unmarshal(e.Data, &r) == nil {
				st.E2E = &r
			}
		case KindPR:
			var r PRResult
			if json.Unmarshal(e.Data, &r) == nil {
				st.PR = &r
			}
		}
		return nil
	})
	return st, err
}

// Slug is the worktree slug of a WP: PROJECT-wpN.
func Slug(project, wp string) string { return project + "-" + strings.ToLower(wp) }

// IntegrationSlug is the single writer's worktree: PROJECT-integration.
func IntegrationSlug(project string) string { return project + "-integration" }

// Env is what every pipeline step needs.
type Env struct {
	Repo    *gitrepo.Repo
	Ledger  *gitstore.Ledger
	Project *plans.Project
	History *plans.History
}

// record appends one pipeline event.
func (e *Env) record(kind, id string, data any, atts []gitstore.AttachmentInput) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	// What we record is made of what agents and commands printed: cleaned
	// of secrets here, where a user's own append is refused.
	b = secrets.ScrubJSON(b)
	for i := range atts {
		atts[i].Content = secrets.ScrubBytes(atts[i].Content)
	}
	if _, err := e.Ledger.Append([]gitstore.Draft{{Kind: kind, ID: id, Data: b, Attachments: atts}}); err != nil {
		return fmt.Errorf("recording %s: %w", kind, err)
	}
	return nil
}

// Frozen returns the frozen plan or the error that says to freeze it.
func (e *Env) Frozen() (*plans.Frozen, error) {
	if e.History == nil || e.History.Frozen == nil {
		return nil, fmt.Errorf("plan %s is not frozen: run git agentproto plan freeze %s", e.Project.Name, e.Project.Name)
	}
	return e.History.Frozen, nil
}

// VerdictForBranch finds the work package whose worktree is on branch
// (wt/PROJECT-wpN) and returns its latest verdict; found is false for a
// branch no dispatch made.
func VerdictForBranch(l *gitstore.Ledger, branch string) (wp, verdict string, found bool, err error) {
	slug, ok := strings.CutPrefix(branch, "wt/")
	if !ok {
		return "", "", false, nil
	}
	var project string
	err = l.Events(gitstore.Query{Kinds: []string{KindDispatched}}, func(e *gitstore.Event) error {
		var d Dispatch
		if json.Unmarshal(e.Data, &d) == nil && d.Worktree == slug && project == "" {
			project, wp = d.Project, d.WP
		}
		return nil
	})
	if err != nil || project == "" {
		return "", "", false, err
	}
	st, err := ReadState(l, project)
	if err != nil {
		return "", "", false, err
	}
	v, ok := st.Verifications[wp]
	if !ok {
		return project + " " + wp, "not verified", true, nil
	}
	return project + " " + wp, v.Verdict, true, nil
}
