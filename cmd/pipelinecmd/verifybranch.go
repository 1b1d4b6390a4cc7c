package pipelinecmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
)

// verifyBranch is verify where the work package's worktree is not: a CI
// job holding the repository, its wt/* branch and the ledger fetched from
// the remote. It re-runs nothing (the worktree and the snapshot of what
// lay outside it are on the supervisor's machine); it holds the commit
// against the ledger's latest verification of the branch's work package,
// as the pre-push check does, and prints that verification, failed with a
// finding when the commit is not a state it saw.
func verifyBranch(cmd *cobra.Command, f *cmdutil.Factory, branch, rev string, asJSON bool) error {
	repo, err := f.Repo()
	if err != nil {
		return err
	}
	l, err := f.ReadLedger()
	if err != nil {
		return err
	}
	branch = strings.TrimPrefix(branch, "refs/heads/")
	label, _, found, err := pipeline.VerdictForBranch(l, branch)
	if err != nil {
		return err
	}
	if !found {
		return fault.Invalidf("no work package was dispatched on branch %s (is the ledger fetched? git fetch origin 'refs/agentproto/*:refs/agentproto/*')", branch)
	}
	out, err := repo.Git("rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return fault.Invalidf("--commit %q names no commit", rev)
	}
	commit := strings.TrimSpace(string(out))
	project, wp, _ := strings.Cut(label, " ")
	st, err := pipeline.ReadState(l, project)
	if err != nil {
		return err
	}
	v := st.Verifications[wp]
	v.Project, v.WP = project, wp
	if v.Changed == nil {
		v.Changed = []string{}
	}
	if v.OutOfScope == nil {
		v.OutOfScope = []string{}
	}
	if err := pipeline.VerifiedState(repo, wp, v, commit); err != nil {
		if fault.KindOf(err) != fault.Refused {
			return err
		}
		v.Verdict = pipeline.Fail
		v.Findings = append(v.Findings, fmt.Sprintf("not-verified-state: %s at %.12s: %v", branch, commit, err))
	}
	if asJSON {
		if err := cmdutil.ExportJSON(cmd, f.IO.Out, v); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(f.IO.Out, "%s %s (branch %s at %.12s): %s\n", project, wp, branch, commit, v.Verdict)
		for _, fd := range v.Findings {
			fmt.Fprintf(f.IO.Out, "  %s\n", fd)
		}
	}
	if v.Verdict != pipeline.Pass {
		return cmdutil.Silent(fmt.Errorf("%s is not a verified state of %s %s", branch, project, wp))
	}
	return nil
}
