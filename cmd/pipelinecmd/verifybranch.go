package pipelinecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/pipeline"
)

// verifyBranch prints app.VerifyBranch: verify where the work
// package's worktree is not (a CI job with the branch and the ledger).
func verifyBranch(cmd *cobra.Command, f *cmdutil.Factory, branch, rev string, asJSON bool) error {
	v, err := f.App().VerifyBranch(context.Background(), branch, rev)
	if err != nil {
		return err
	}
	if asJSON {
		if err := cmdutil.ExportJSON(cmd, f.IO.Out, v.Verification); err != nil {
			return err
		}
	}
	what := v.WP
	if what == "" {
		what = "integration" // the branch pr open pushes
	}
	if !asJSON {
		fmt.Fprintf(f.IO.Out, "%s %s (branch %s at %.12s): %s\n", v.Project, what, v.Branch, v.Commit, v.Verdict)
		for _, fd := range v.Findings {
			fmt.Fprintf(f.IO.Out, "  %s\n", fd)
		}
	}
	if v.Verdict != pipeline.Pass {
		return cmdutil.Silent(fmt.Errorf("%s is not a verified state of %s %s", v.Branch, v.Project, what))
	}
	return nil
}
