// Package pipeline is the supervisor's main job: dispatch work packages to
// executor sessions in their own worktrees, verify them on disk, checkpoint
// their in-perimeter changes, consolidate them as a single writer, review
// the result adversarially, run the end-to-end commands and open a pull
// request. Every step is a ledger event, so a run can stop anywhere and
// continue where it stopped.
package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plans"
)

// Verdicts of verify.
const (
	Pass = "pass"
	Fail = "fail"
)

// State is what the ledger says about one plan's pipeline.
type State struct {
	Dispatches    map[string][]Dispatch   // by WP, oldest first
	Verifications map[string]Verification // latest, by WP
	VerifiedAt    map[string]time.Time    // when the latest was recorded, by WP
	Checkpoints   map[string]Checkpoint   // latest, by WP
	Consolidated  *Consolidation
	Review        *ReviewResult
	E2E           *E2EResult
	PR            *PRResult
	// Untrusted are the plan's events this clone's pipeline did not write,
	// left out of everything above, oldest first.
	Untrusted []Untrusted
	// doubted holds, by WP, an untrusted verification newer than the
	// latest trusted one.
	doubted map[string]Untrusted
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

// Verified reports whether the latest verification of wp passed, and no
// verification the pipeline did not write came after it.
func (s *State) Verified(wp string) bool {
	v, ok := s.Verifications[wp]
	_, doubted := s.doubted[wp]
	return ok && v.Verdict == Pass && !doubted
}

// ReadState reads the pipeline events of project from the ledger. Events
// of its kinds that this clone's pipeline did not write are left out and
// listed in Untrusted (trust.go).
func ReadState(l gitstore.Store, project string) (*State, error) { return readState(l, project, false) }

// ReadFetchedState is ReadState for a clone that judges pushed branches
// (CI): the plan's events were written by the developer's clone, whose
// seals cannot be checked here, so another writer's events are read as
// they are (and still listed in Untrusted); one of this clone's own that
// fails its seal is left out all the same.
func ReadFetchedState(l gitstore.Store, project string) (*State, error) {
	return readState(l, project, true)
}

func readState(l gitstore.Store, project string, foreign bool) (*State, error) {
	st := &State{Dispatches: map[string][]Dispatch{}, Verifications: map[string]Verification{}, Checkpoints: map[string]Checkpoint{}, doubted: map[string]Untrusted{},
		VerifiedAt: map[string]time.Time{}}
	var failed error
	// trusted says whether e, an event of project, may be folded.
	trusted := func(st *State, e *gitstore.Event, wp string) bool {
		out, err := st.distrusted(l, e, wp)
		if err != nil && failed == nil {
			failed = err
		}
		if out && foreign && st.Untrusted[len(st.Untrusted)-1].Foreign {
			return true
		}
		return !out
	}
	// Every id of a plan's pipeline event starts with pipeline/NAME/: the
	// other plans' records are not decoded nor their seals checked.
	_, err := gitstore.FoldPrefix(l, "pipeline/"+project+"/", st,
		gitstore.On(dispatchedKind, func(st *State, e *gitstore.Event, d Dispatch) {
			if d.Project == project && trusted(st, e, d.WP) {
				st.Dispatches[d.WP] = append(st.Dispatches[d.WP], d)
			}
		}),
		gitstore.On(outsideAcceptedKind, func(st *State, e *gitstore.Event, a OutsideAccepted) {
			// The accepted snapshot stands in for the dispatch's own.
			if d := st.Dispatches[a.WP]; a.Project == project && len(d) > 0 && trusted(st, e, a.WP) {
				d[len(d)-1].Outside = a.Outside
			}
		}),
		gitstore.On(verifiedKind, func(st *State, e *gitstore.Event, v Verification) {
			if v.Project != project {
				return
			}
			if trusted(st, e, v.WP) {
				st.Verifications[v.WP] = v
				st.VerifiedAt[v.WP], _ = time.Parse(time.RFC3339Nano, e.Time)
				delete(st.doubted, v.WP)
			} else if n := len(st.Untrusted); n > 0 && st.Untrusted[n-1].Record == e.ID {
				st.Untrusted[n-1].verification = &v
				st.doubted[v.WP] = st.Untrusted[n-1]
			}
		}),
		gitstore.On(checkpointedKind, func(st *State, e *gitstore.Event, c Checkpoint) {
			if c.Project == project && trusted(st, e, c.WP) {
				st.Checkpoints[c.WP] = c
			}
		}),
		gitstore.On(consolidatedKind, func(st *State, e *gitstore.Event, c Consolidation) {
			if c.Project == project && trusted(st, e, "") {
				st.Consolidated = &c
			}
		}),
		gitstore.On(reviewedKind, func(st *State, e *gitstore.Event, r ReviewResult) {
			if r.Project == project && trusted(st, e, "") {
				st.Review = &r
			}
		}),
		gitstore.On(e2eKind, func(st *State, e *gitstore.Event, r E2EResult) {
			if r.Project == project && trusted(st, e, "") {
				st.E2E = &r
			}
		}),
		gitstore.On(prKind, func(st *State, e *gitstore.Event, r PRResult) {
			if r.Project == project && trusted(st, e, "") {
				st.PR = &r
			}
		}))
	if err == nil {
		err = failed
	}
	return st, err
}

// Slug is the worktree slug of a WP: PROJECT-wpN.
func Slug(project, wp string) string { return project + "-" + strings.ToLower(wp) }

// IntegrationSlug is the single writer's worktree: PROJECT-integration.
func IntegrationSlug(project string) string { return project + "-integration" }

// Env is what every pipeline step needs.
type Env struct {
	Repo    *gitrepo.Repo
	Ledger  gitstore.Store
	Project *plans.Project
	History *plans.History
}

// record appends one pipeline event, with data of the type its kind
// declares (events.go); secrets in it are scrubbed.
func (e *Env) record(kind, id string, data any, atts []gitstore.AttachmentInput) error {
	if _, err := owner.Record(e.Ledger, kind, id, data, atts...); err != nil {
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
func VerdictForBranch(l gitstore.Store, branch string) (wp, verdict string, found bool, err error) {
	slug, ok := strings.CutPrefix(branch, "wt/")
	if !ok {
		return "", "", false, nil
	}
	// The newest dispatch of the worktree names its plan and WP.
	var project string
	_, err = gitstore.Fold(l, &project, gitstore.On(dispatchedKind, func(project *string, _ *gitstore.Event, d Dispatch) {
		if d.Worktree == slug {
			*project, wp = d.Project, d.WP
		}
	}))
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
