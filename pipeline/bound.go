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
	out, err := repo.Git("log", "-1", "--format=%T %P", commit)
	if err != nil {
		return err
	}
	f := strings.Fields(string(out))
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
	if err := VerifiedState(repo, wp, st.Verifications[wp], commit); err != nil {
		return fmt.Errorf("%s is %s %s's branch: %w", branch, project, wp, err)
	}
	return nil
}

// verifiedTip returns the commit wp's branch points at when it is a state
// its latest verification passed, for consolidate to merge that commit
// and no later one.
func (e *Env) verifiedTip(st *State, wp string) (string, error) {
	branch := worktree.BranchPrefix + Slug(e.Project.Name, wp)
	tip, err := e.Repo.Commit("refs/heads/" + branch)
	if err != nil {
		return "", fmt.Errorf("branch %s is gone", branch)
	}
	if err := VerifiedState(e.Repo, wp, st.Verifications[wp], tip); err != nil {
		return "", fmt.Errorf("%s: %w", branch, err)
	}
	return tip, nil
}
