package pipeline

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/worktree"
)

// ReviewResult is the data of a plan_reviewed event.
type ReviewResult struct {
	Project  string          `json:"project"`
	Gates    []judge.GateRun `json:"gates"`
	Findings []judge.Finding `json:"findings"`
	Reviewer string          `json:"reviewer_session,omitempty"`
	// ReviewerVerdicts is what the reviewer session said; attached,
	// never counted in OK.
	ReviewerVerdicts *judge.ReviewerVerdicts `json:"reviewer,omitempty"`
	OK               bool                    `json:"ok"`
}

// Review is adversarial and never fixes: it re-runs every gate, diffs each
// WP's commits against its perimeter, and judges each change as
// ReviewChange does: from the tests executed at its base and head and from
// its parsed code. It reads the work in this machine's worktrees.
func (e *Env) Review(gateTimeout, mutationBudget time.Duration) (*ReviewResult, error) {
	return e.review(worktreeWork{e}, gateTimeout, mutationBudget)
}

// work says where review finds the plan's work: the worktrees on this
// machine (Review), or copies of the commits a CI job holds (ReviewAt).
// Both go through the same review, so one commit gets one verdict.
type work interface {
	// wp is the directory holding WP id's code, where its gate runs, and
	// the revision of its commits. missing says why there is none; skip
	// leaves the WP out of this review.
	wp(id string) (dir, rev, missing string, skip bool, err error)
	// integration is the same for the integration branch; rev is "" when
	// there is none.
	integration() (dir, rev string, err error)
}

// worktreeWork is the work in this machine's worktrees.
type worktreeWork struct{ e *Env }

func (w worktreeWork) wp(id string) (string, string, string, bool, error) {
	slug := Slug(w.e.Project.Name, id)
	m, err := worktree.Load(w.e.Repo, slug)
	if err != nil {
		return "", "", id + " has no worktree: it was never dispatched", false, nil
	}
	return m.Path, worktree.BranchPrefix + slug, "", false, nil
}

func (w worktreeWork) integration() (string, string, error) {
	m, err := worktree.Load(w.e.Repo, IntegrationSlug(w.e.Project.Name))
	if err != nil {
		return "", "", nil
	}
	return m.Path, m.Branch, nil
}

func (e *Env) review(w work, gateTimeout, mutationBudget time.Duration) (*ReviewResult, error) {
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	if e, err = e.atFreeze(frozen); err != nil {
		return nil, err
	}
	r := &ReviewResult{Project: e.Project.Name, Gates: []judge.GateRun{}, Findings: []judge.Finding{}}
	// Each gate run has gateTimeout of its own: one bound over them all
	// ended the later gates of a large plan (137) and lost their tests.
	ctx := context.Background()
	runGate := func(dir string) judge.Gate {
		gctx, cancel := context.WithTimeout(ctx, gateTimeout)
		defer cancel()
		g, _ := judge.RunGate(gctx, dir, frozen.Gate)
		return g
	}
	base := frozen.BaseCommit
	_, local := w.(worktreeWork)
	read := ReadState
	if !local {
		read = ReadFetchedState
	}
	st, err := read(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	// whose: the WP of each head; labels: its worktree's slug, which
	// names it in the gates' list wherever its code was read.
	var heads, bases, whose, labels []string
	var wpDirs [][2]string // WP id, its code
	for _, wp := range order(e.Project) {
		// Seals are checked where they were made: a review of pushed
		// branches in CI (another clone) reads the developer's
		// verifications as verify --branch does.
		if u, ok := st.UntrustedVerification(wp.ID); ok && local {
			r.Findings = append(r.Findings, judge.Finding{Code: "untrusted-verification", WP: wp.ID, Message: u.String()})
		}
		dir, branch, missing, skip, err := w.wp(wp.ID)
		switch {
		case err != nil:
			return nil, err
		case skip:
			continue
		case missing != "":
			r.Findings = append(r.Findings, judge.Finding{Code: "wp-missing", WP: wp.ID, Message: missing})
			continue
		}
		g := runGate(dir)
		r.Gates = append(r.Gates, judge.GateRun{Where: wp.ID, Gate: g})
		if g.ExitCode != 0 {
			r.Findings = append(r.Findings, judge.Finding{Code: "gate-failed", WP: wp.ID, Message: fmt.Sprintf("the gate exits %d in %s's worktree", g.ExitCode, wp.ID)})
		}
		wpBase := base // a WP is measured from where it started
		if b := st.Base(wp.ID); b != "" {
			wpBase = b
		}
		changed, err := e.Repo.ChangedNames(wpBase, branch)
		if err != nil {
			return nil, err
		}
		for _, p := range changed {
			owners := plans.Owner(e.Project, p)
			if len(owners) != 1 || owners[0] != wp.ID {
				r.Findings = append(r.Findings, judge.Finding{Code: "commit-out-of-perimeter", WP: wp.ID, File: p, Message: fmt.Sprintf("%s committed %s, which its brief does not own (%s)", wp.ID, p, strings.Join(owners, ","))})
			}
		}
		heads, bases, whose = append(heads, branch), append(bases, wpBase), append(whose, wp.ID)
		labels = append(labels, Slug(e.Project.Name, wp.ID))
		wpDirs = append(wpDirs, [2]string{wp.ID, dir})
	}
	claimsBy, registries := reportClaims(e.Project, st)
	// The code to read: the integration branch when there is one, else each
	// WP branch.
	dir, branch, err := w.integration()
	if err != nil {
		return nil, err
	}
	if branch != "" {
		var all []judge.Claim
		for _, wp := range order(e.Project) {
			all = append(all, claimsBy[wp.ID]...)
		}
		r.Findings = append(r.Findings, judge.RegistryFindings(dir, all, registries)...)
		g := runGate(dir)
		r.Gates = append(r.Gates, judge.GateRun{Where: "integration", Gate: g})
		if g.ExitCode != 0 {
			r.Findings = append(r.Findings, judge.Finding{Code: "gate-failed", Message: fmt.Sprintf("the gate exits %d in the integration worktree", g.ExitCode)})
		}
		heads, bases, whose, labels = []string{branch}, []string{base}, []string{""}, []string{IntegrationSlug(e.Project.Name)}
	} else {
		for _, w := range wpDirs {
			r.Findings = append(r.Findings, judge.RegistryFindings(w[1], claimsBy[w[0]], registries)...)
		}
	}
	// The same engine as one change's review judges each head: executed
	// tests at base and head, parsed code, text patterns as warnings.
	seen := map[string]bool{}
	for i, head := range heads {
		cr, err := judge.ReviewChange(ctx, e.Repo, bases[i], head, judge.ChangeOptions{Gate: frozen.Gate, GateTimeout: gateTimeout, MutationBudget: mutationBudget})
		if err != nil {
			return nil, err
		}
		for _, g := range cr.Gates {
			r.Gates = append(r.Gates, judge.GateRun{Where: labels[i] + " " + g.Where, Gate: g.Gate})
		}
		for _, f := range cr.Findings {
			key := f.Code + f.File + fmt.Sprint(f.Line) + f.Message
			if f.Code != "gate-failed" && !seen[key] {
				seen[key] = true
				if f.WP == "" {
					f.WP = whose[i] // every finding is routed to its WP
				}
				r.Findings = append(r.Findings, f)
			}
		}
	}
	sort.SliceStable(r.Findings, func(i, j int) bool {
		if r.Findings[i].File != r.Findings[j].File {
			return r.Findings[i].File < r.Findings[j].File
		}
		return r.Findings[i].Line < r.Findings[j].Line
	})
	r.OK = !judge.AnyError(r.Findings)
	return r, nil
}

// ChangeOptions says what a change must pass and may touch.
type ChangeOptions struct {
	Gate string   // the command that must pass; none when empty
	Own  []string // perimeter globs; any path when empty
	// MutationBudget bounds the mutation smoke; zero turns it off.
	MutationBudget time.Duration
}

// ReviewChange reviews base..head with no plan (judge.ReviewChange), the
// perimeter's globs matched as a plan's own.
func ReviewChange(ctx context.Context, repo *gitrepo.Repo, base, head string, opt ChangeOptions) (*judge.ChangeReview, error) {
	jo := judge.ChangeOptions{Gate: opt.Gate, Own: opt.Own, MutationBudget: opt.MutationBudget}
	if len(opt.Own) > 0 {
		var own []perimeter.Glob
		for _, o := range opt.Own {
			g, err := perimeter.ParseGlob(o)
			if err != nil {
				return nil, fmt.Errorf("--own %s: %v", o, err)
			}
			own = append(own, g)
		}
		jo.Inside = func(p string) bool { return matchesAny(own, p) }
	}
	return judge.ReviewChange(ctx, repo, base, head, jo)
}

func matchesAny(gs []perimeter.Glob, p string) bool {
	for _, g := range gs {
		if g.Match(p) {
			return true
		}
	}
	return false
}

// reportClaims gathers the claims review can look up, by WP, and the
// shared files the reports wire into: the plan's plain-text registries.
func reportClaims(p *plans.Project, st *State) (map[string][]judge.Claim, []string) {
	by := map[string][]judge.Claim{}
	seen := map[string]bool{}
	var registries []string
	for _, wp := range order(p) {
		v, ok := st.Verifications[wp.ID]
		if !ok || v.Report == nil {
			continue
		}
		for _, s := range v.Report.Claims {
			if c, ok := judge.ParseClaim(wp.ID, s); ok {
				by[wp.ID] = append(by[wp.ID], c)
			}
		}
		for _, w := range v.Report.Wiring {
			f, err := repopath.Clean(w.File)
			if err != nil || seen[f] || isConfigWiring(w) {
				continue
			}
			if o := plans.Owner(p, f); len(o) == 1 && o[0] == "shared" {
				seen[f] = true
				registries = append(registries, f)
			}
		}
	}
	return by, registries
}

// RecordReview stores a review and its reviewer report, if any.
func (e *Env) RecordReview(r *ReviewResult, reviewerReport []byte) error {
	var atts []gitstore.AttachmentInput
	if len(reviewerReport) > 0 {
		atts = append(atts, gitstore.AttachmentInput{Name: "reviewer-report.txt", Content: reviewerReport})
	}
	id := fmt.Sprintf("pipeline/%s/review/%d", e.Project.Name, time.Now().UnixNano())
	return e.record(KindReviewed, id, r, atts)
}

// E2EResult is the data of a plan_e2e event.
type E2EResult struct {
	Project  string          `json:"project"`
	Worktree string          `json:"worktree"`
	Commands []judge.GateRun `json:"commands"`
	OK       bool            `json:"ok"`
}

// E2E runs the configured end-to-end commands in the integration worktree
// and records their real exit codes.
func (e *Env) E2E(commands []string, timeout time.Duration) (*E2EResult, error) {
	m, err := worktree.Load(e.Repo, IntegrationSlug(e.Project.Name))
	if err != nil {
		return nil, fmt.Errorf("no integration worktree: run git agentproto consolidate %s first", e.Project.Name)
	}
	r := &E2EResult{Project: e.Project.Name, Worktree: m.Path, Commands: []judge.GateRun{}, OK: true}
	var atts []gitstore.AttachmentInput
	for i, c := range commands {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		g, log := judge.RunGate(ctx, m.Path, c)
		cancel()
		g.Log = fmt.Sprintf("e2e-%d.log", i+1)
		atts = append(atts, gitstore.AttachmentInput{Name: g.Log, Content: log})
		r.Commands = append(r.Commands, judge.GateRun{Where: fmt.Sprintf("e2e %d", i+1), Gate: g})
		if g.ExitCode != 0 {
			r.OK = false
		}
	}
	id := fmt.Sprintf("pipeline/%s/e2e/%d", e.Project.Name, time.Now().UnixNano())
	return r, e.record(KindE2E, id, r, atts)
}
