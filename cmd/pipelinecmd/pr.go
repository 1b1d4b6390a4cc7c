package pipelinecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// PROpenOptions are the inputs of `pr open`.
type PROpenOptions struct {
	deps
	Project     string
	Base, Title string
	Draft       bool
	DryRun      bool
	Force       bool
	JSON        bool
	Export      *cmdutil.Exporter
}

func newCmdPR(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "pr <command>", Short: "Open the plan's pull request on GitHub (never merged by agentproto)"}
	cmd.AddCommand(NewCmdPROpen(f, nil), newCmdPRComment(f), NewCmdPRWatch(f, nil), NewCmdPRAnswer(f, nil))
	return cmd
}

// NewCmdPROpen returns `pr open`.
func NewCmdPROpen(f *cmdutil.Factory, runF func(*PROpenOptions) error) *cobra.Command {
	opts := &PROpenOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "open PROJECT [--draft] [--base B] [--title T] [--dry-run] [--force] [--json]",
		Short: "Push the integration branch and open (or update) its pull request",
		Long: `Push wt/PROJECT-integration with the git CLI, then POST /repos/{owner}/{repo}/pulls
through go-gh: github.com or an Enterprise host, owner/repo from the remote URL
(or [pr] repo/host). The token comes from GH_TOKEN, GITHUB_TOKEN or gh's own
configuration and is never printed. The body comes from the ledger. A pull
request that already exists is found and its body updated. --dry-run prints
the push and the request and sends nothing. After a review that found
problems it refuses, as run does, and says how to fix them; --force opens it
anyway, the findings in its body.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Project = args[0]
			if runF != nil {
				return runF(opts)
			}
			return prOpenRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Draft, "draft", false, "open as a draft")
	fl.StringVar(&opts.Base, "base", "", "base branch (default: the plan's base)")
	fl.StringVar(&opts.Title, "title", "", "title (default: agentproto: PROJECT)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the request; send nothing")
	fl.BoolVar(&opts.Force, "force", false, "open it though the last review found problems")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the result as JSON")
	return cmd
}

func prOpenRun(o *PROpenOptions) error {
	out, err := o.App.OpenPR(context.Background(), app.PROptions{Project: o.Project, Base: o.Base, Title: o.Title, Draft: o.Draft, DryRun: o.DryRun, Force: o.Force})
	if err != nil {
		return err
	}
	switch {
	case o.DryRun && o.JSON:
		return o.Export.Write(o.IO.Out, map[string]any{"project": o.Project, "repo": out.Repo.String(), "dry_run": true, "request": out.Request})
	case o.DryRun:
		fmt.Fprint(o.IO.Out, out.Request)
		return nil
	case o.JSON:
		return o.Export.Write(o.IO.Out, out.Result)
	}
	verb := "opened"
	if out.Result.Updated {
		verb = "updated"
	}
	fmt.Fprintf(o.IO.Out, "%s pull request #%d: %s\n", verb, out.Result.Number, out.Result.URL)
	return nil
}
