package pipelinecmd

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// defaultMarker starts the comments agentproto writes, so a job run again
// edits its own comment instead of adding one.
const defaultMarker = "<!-- agentproto -->"

func newCmdPRComment(f *cmdutil.Factory) *cobra.Command {
	var bodyFile, repoFlag, host, marker string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "comment NUMBER --body-file F [--repo OWNER/NAME] [--host HOST] [--marker M] [--json]",
		Short: "Post a comment on a pull request, or edit the one posted before (e.g. findings from CI)",
		Long: `Post the text of --body-file (- for stdin) on pull request NUMBER through the
GitHub API, or edit the comment that starts with --marker when there is one,
so a job run again keeps one comment up to date. The repository is --repo
(e.g. $GITHUB_REPOSITORY), else [pr] repo, else the remote URL; the host is
--host, else [pr] host, else that of the remote URL or github.com. The token
comes from GH_TOKEN, GITHUB_TOKEN or gh's own configuration and is never
printed; secrets of the environment are redacted from the text.`,
		Args: cmdutil.ExactArgs(1, "a pull request number"),
		RunE: func(cmd *cobra.Command, args []string) error {
			number, err := strconv.Atoi(args[0])
			if err != nil || number <= 0 {
				return fault.Invalidf("pull request number %q: want a positive number", args[0])
			}
			c, err := f.App().CommentPR(cmd.Context(), app.PRCommentOptions{Number: number, BodyFile: bodyFile, Stdin: f.IO.In,
				Repo: repoFlag, Host: host, Marker: marker})
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, c)
			}
			verb := "commented on"
			if c.Updated {
				verb = "updated the comment on"
			}
			fmt.Fprintf(f.IO.Out, "%s pull request #%d: %s\n", verb, number, c.URL)
			return nil
		},
	}
	cmd.Flags().StringVar(&bodyFile, "body-file", "", "the comment's text (Markdown); - reads stdin")
	cmd.Flags().StringVar(&repoFlag, "repo", "", "OWNER/NAME (default [pr] repo, else the remote URL)")
	cmd.Flags().StringVar(&host, "host", "", "GitHub host (default [pr] host, else the remote URL's, else github.com)")
	cmd.Flags().StringVar(&marker, "marker", defaultMarker, "text the comment starts with, to find it again")
	cmdutil.AddJSONFlags(cmd, &asJSON, `print the comment as GitHub returned it as JSON: {"id","html_url","body","updated"}`)
	return cmd
}

// commentTarget is --repo and --host, else what pr open would use.
