package pipeline

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/worktree"
)

// VerifiedState checks that commit is a state v saw and passed: the HEAD
// it verified (every commit up to it was among the changes it checked),
// or one commit on that HEAD holding exactly the verified tree, which is
// what checkpoint makes. Anything else — a commit made after verify, a
// rewritten branch — is refused with why.
func VerifiedState(repo *gitrepo.Repo, wp string, v Verification, commit string) error {
	if v.Verdict != Pass {
		return fault.Refusedf("%s's latest verify is %q", wp, or(v.Verdict, "not verified"))
	}
	if v.Tree == "" || v.Head == "" {
		return fault.Refusedf("%s was verified before verifications recorded the state they saw; verify it again", wp)
	}
	if commit == v.Head {
		return nil
	}
	c, err := repo.ReadCommit(commit)
	if err != nil {
		return err
	}
	return checkpointOf(wp, v, commit, c.Tree+" "+strings.Join(c.Parents, " "))
}

// checkpointOf accepts commit, whose "TREE PARENTS" are treeParents, when
// it is one commit on the verified HEAD holding exactly the verified tree.
func checkpointOf(wp string, v Verification, commit, treeParents string) error {
	f := strings.Fields(treeParents)
	if len(f) == 2 && f[0] == v.Tree && f[1] == v.Head {
		return nil
	}
	return fault.Refusedf("%.12s is not the state %s was verified at (HEAD %.12s, tree %.12s): something changed after verify; verify again", commit, wp, v.Head, v.Tree)
}

// CheckBranchCommit refuses commit as the content of branch when branch
// is a work package's and commit is not a state its latest verification
// passed. Branches no dispatch made are not its business.
func CheckBranchCommit(repo *gitrepo.Repo, l *gitstore.Ledger, branch, commit string) error {
	label, _, found, err := VerdictForBranch(l, branch)
	if err != nil || !found {
		return err
	}
	project, wp, _ := strings.Cut(label, " ")
	st, err := ReadState(l, project)
	if err != nil {
		return err
	}
	if err := st.refuseUntrusted(project, wp); err != nil {
		return fmt.Errorf("%s is %s %s's branch: %w", branch, project, wp, err)
	}
	if err := VerifiedState(repo, wp, st.Verifications[wp], commit); err != nil {
		return fmt.Errorf("%s is %s %s's branch: %w", branch, project, wp, err)
	}
	return nil
}

// branchTip is a WP branch's commit with its tree and parents.
type branchTip struct{ commit, treeParents string }

// wpBranches reads every WP branch of the plan in one process: consolidate
// asked git twice per WP before.
func (e *Env) wpBranches() (map[string]branchTip, error) {
	pattern := "refs/heads/" + worktree.BranchPrefix + Slug(e.Project.Name, "") + "*"
	out, err := e.Repo.Git("for-each-ref", "--format=%(refname:short)%09%(objectname)%09%(tree) %(parent)", pattern)
	if err != nil {
		return nil, err
	}
	tips := map[string]branchTip{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 3 {
			tips[f[0]] = branchTip{commit: f[1], treeParents: f[2]}
		}
	}
	return tips, nil
}

// verifiedTip returns the commit wp's branch points at when it is a state
// its latest verification passed, for consolidate to merge that commit
// and no later one.
func (e *Env) verifiedTip(st *State, wp string, branches map[string]branchTip) (string, error) {
	branch := worktree.BranchPrefix + Slug(e.Project.Name, wp)
	b, ok := branches[branch]
	if !ok {
		return "", fmt.Errorf("branch %s is gone", branch)
	}
	v := st.Verifications[wp]
	if err := VerifiedState(nil, wp, v, v.Head); err != nil {
		return "", fmt.Errorf("%s: %w", branch, err) // not passed, or no state recorded
	}
	if b.commit != v.Head {
		if err := checkpointOf(wp, v, b.commit, b.treeParents); err != nil {
			return "", fmt.Errorf("%s: %w", branch, err)
		}
	}
	return b.commit, nil
}
