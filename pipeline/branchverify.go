package pipeline

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// BranchVerification is a WP's latest verification held against one
// commit of its branch.
type BranchVerification struct {
	Verification
	Branch string `json:"-"`
	Commit string `json:"-"`
}

// VerifyBranch is verify where the work package's worktree is not: a CI
// job holding the repository, its wt/* branch and the ledger fetched from
// the remote. It re-runs nothing (the worktree and the snapshot of what
// lay outside it are on the supervisor's machine); it holds the commit rev
// against the ledger's latest verification of the branch's work package,
// as the pre-push check does, and returns that verification, failed with a
// finding when the commit is not a state it saw. A plan's integration
// branch is held against the plan's consolidation instead.
func VerifyBranch(repo *gitrepo.Repo, l *gitstore.Ledger, branch, rev string) (*BranchVerification, error) {
	branch = strings.TrimPrefix(branch, "refs/heads/")
	label, _, found, err := VerdictForBranch(l, branch)
	if err != nil {
		return nil, err
	}
	integration := ""
	if !found {
		project, wp, ok, err := PlanOfBranch(l, branch)
		if err != nil {
			return nil, err
		}
		if !ok || wp != "" {
			return nil, fault.Invalidf("no work package was dispatched on branch %s, and no plan was consolidated on it (is the ledger fetched? git fetch origin 'refs/agentproto/*:refs/agentproto/*')", branch)
		}
		integration = project
	}
	commit, err := repo.Commit(rev)
	if err != nil {
		return nil, fault.Invalidf("--commit %q names no commit", rev)
	}
	if integration != "" {
		return verifyIntegration(l, integration, branch, commit)
	}
	project, wp, _ := strings.Cut(label, " ")
	st, err := ReadState(l, project)
	if err != nil {
		return nil, err
	}
	v := st.Verifications[wp]
	u, doubted := st.UntrustedVerification(wp)
	if doubted && u.Foreign && u.verification != nil {
		// The ledger was fetched: its writers are not this clone, and what
		// this job holds is theirs to vouch for.
		v = *u.verification
	} else if doubted {
		v.Verdict = Fail
		v.Findings = append(v.Findings, "untrusted-verification: "+u.String())
	}
	v.Project, v.WP = project, wp
	if v.Changed == nil {
		v.Changed = []string{}
	}
	if v.OutOfScope == nil {
		v.OutOfScope = []string{}
	}
	if err := VerifiedState(repo, wp, v, commit); err != nil {
		if fault.KindOf(err) != fault.Refused {
			return nil, err
		}
		v.Verdict = Fail
		v.Findings = append(v.Findings, fmt.Sprintf("not-verified-state: %s at %.12s: %v", branch, commit, err))
	}
	return &BranchVerification{Verification: v, Branch: branch, Commit: commit}, nil
}

// verifyIntegration holds commit of a plan's integration branch (the one
// pr open pushes) against the ledger's consolidation: it passes only for
// the consolidated head with a green gate, what pr open pushes.
func verifyIntegration(l gitstore.Store, project, branch, commit string) (*BranchVerification, error) {
	st, err := ReadFetchedState(l, project)
	if err != nil {
		return nil, err
	}
	v := Verification{Project: project, Worktree: IntegrationSlug(project), Changed: []string{}, OutOfScope: []string{}, Verdict: Pass}
	c := st.Consolidated
	switch {
	case c == nil:
		v.Verdict, v.Findings = Fail, []string{fmt.Sprintf("not-consolidated: plan %s has no consolidation in the ledger", project)}
	case c.Head != commit:
		v.Head = c.Head
		v.Verdict, v.Findings = Fail, []string{fmt.Sprintf("not-consolidated-state: %s at %.12s is not the consolidated %.12s", branch, commit, c.Head)}
	case !c.OK:
		v.Head = c.Head
		v.Verdict, v.Findings = Fail, []string{fmt.Sprintf("consolidation-failed: the consolidation of %s at %.12s did not pass its gate", project, c.Head)}
	default:
		v.Head = c.Head
	}
	return &BranchVerification{Verification: v, Branch: branch, Commit: commit}, nil
}
