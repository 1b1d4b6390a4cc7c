package pipeline

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/worktree"
)

// BranchReview is review where the worktrees are not: a CI job holding the
// repository, a pull request's branch and, when it fetched it, the ledger.
// One commit gets one verdict: with the plan in the ledger it is the
// review of review PROJECT, on the commits; without, the change is judged
// alone and Unseen says what that cannot see.
type BranchReview struct {
	Branch string `json:"branch"`
	Base   string `json:"base"`
	Head   string `json:"head"`
	// Judged is JudgedPlan or JudgedChange.
	Judged  string `json:"judged"`
	Project string `json:"project,omitempty"`
	// WP is the work package whose branch it is; "" for the integration
	// branch, whose review is the whole plan's.
	WP string `json:"wp,omitempty"`
	// Unseen is what a review of the change alone cannot see.
	Unseen []string `json:"unseen,omitempty"`
	// Notes say where the review differs from what it was asked.
	Notes    []string        `json:"notes,omitempty"`
	Gates    []judge.GateRun `json:"gates"`
	Findings []judge.Finding `json:"findings"`
	OK       bool            `json:"ok"`
}

// How a branch was judged.
const (
	JudgedPlan   = "plan"
	JudgedChange = "change"
)

// Unseen is what a review of a change alone cannot see, that review
// PROJECT sees in the ledger: each a reason its verdict may differ.
var Unseen = []string{
	"the work packages' report claims (names declared and registered once)",
	"the briefs' perimeters (a path committed outside its work package's)",
	"the frozen plan's gate (only the gate given to this review ran)",
	"the other work packages of the plan and the integration branch",
}

// PlanOfBranch finds the plan a wt/* branch belongs to in the ledger: a
// work package's branch (its newest dispatch names it) or the integration
// branch consolidate made. found is false for a branch neither names.
func PlanOfBranch(l gitstore.Store, branch string) (project, wp string, found bool, err error) {
	branch = strings.TrimPrefix(branch, "refs/heads/")
	slug, ok := strings.CutPrefix(branch, worktree.BranchPrefix)
	if !ok {
		return "", "", false, nil
	}
	type seen struct{ project, wp string }
	var s seen
	_, err = gitstore.Fold(l, &s,
		gitstore.On(dispatchedKind, func(s *seen, _ *gitstore.Event, d Dispatch) {
			if d.Worktree == slug {
				*s = seen{d.Project, d.WP}
			}
		}),
		gitstore.On(consolidatedKind, func(s *seen, _ *gitstore.Event, c Consolidation) {
			if c.Branch == branch || IntegrationSlug(c.Project) == slug {
				*s = seen{c.Project, ""}
			}
		}))
	return s.project, s.wp, s.project != "", err
}

// ReviewAt is Review of the plan's work as committed, for a branch at
// commit head: the integration branch's review is the whole plan's, a work
// package's branch's is that WP's. The code is read from fresh copies of
// the commits, not from worktrees: the other WPs' from their wt/* branches
// (local or fetched), else from their checkpoints.
func (e *Env) ReviewAt(wp, head string, gateTimeout, mutationBudget time.Duration) (*ReviewResult, error) {
	w := &commitWork{e: e, wpOnly: wp, head: head}
	defer w.close()
	return e.review(w, gateTimeout, mutationBudget)
}

// commitWork is the plan's work in commits, copied out for the gates.
type commitWork struct {
	e      *Env
	wpOnly string // the WP whose branch is reviewed; "" for the plan
	head   string
	dirs   []string
}

func (w *commitWork) wp(id string) (string, string, string, bool, error) {
	if w.wpOnly != "" && id != w.wpOnly {
		return "", "", "", true, nil
	}
	rev := w.head
	if id != w.wpOnly {
		rev = w.committed(id)
	}
	if rev == "" {
		branch := worktree.BranchPrefix + Slug(w.e.Project.Name, id)
		return "", "", fmt.Sprintf("%s has no commits here: neither its branch %s nor its checkpoint is in this repository (push the branch; fetch refs/heads/wt/*)", id, branch), false, nil
	}
	dir, err := w.copy(rev)
	return dir, rev, "", false, err
}

func (w *commitWork) integration() (string, string, error) {
	if w.wpOnly != "" {
		return "", "", nil
	}
	dir, err := w.copy(w.head)
	return dir, w.head, err
}

// committed is the commit of WP id's work: its branch, here or fetched
// from a remote, else its latest checkpoint when that commit is here.
func (w *commitWork) committed(id string) string {
	slug := Slug(w.e.Project.Name, id)
	refs, _ := w.e.Repo.Refs("refs/heads/"+worktree.BranchPrefix+slug, "refs/remotes/*/"+worktree.BranchPrefix+slug)
	if len(refs) > 0 {
		return refs[0].ID
	}
	st, err := ReadFetchedState(w.e.Ledger, w.e.Project.Name)
	if err != nil {
		return ""
	}
	if c := st.Checkpoints[id].Commit; c != "" {
		if commit, err := w.e.Repo.Commit(c); err == nil {
			return commit
		}
	}
	return ""
}

func (w *commitWork) copy(rev string) (string, error) {
	commit, err := w.e.Repo.Commit(rev)
	if err != nil {
		return "", fmt.Errorf("%s names no commit", rev)
	}
	dir, err := judge.CopyCommit(w.e.Repo, commit)
	if err != nil {
		return "", err
	}
	w.dirs = append(w.dirs, dir)
	return dir, nil
}

func (w *commitWork) close() {
	for _, d := range w.dirs {
		os.RemoveAll(d)
	}
}
