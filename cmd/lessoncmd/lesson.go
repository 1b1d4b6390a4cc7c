// Package lessoncmd wires `lesson add` and `lesson ls`.
package lessoncmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// NewCmdLesson returns the `lesson` command.
func NewCmdLesson(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lesson <command>",
		Short: "Record gotchas so the next supervisor and every executor prompt learn them",
		Long: `Lessons are ledger events. plan render includes the recent lessons that share a
tag with the plan's tags (plan.toml tags = [...]), and untagged ones when the plan
has none; supervisor prompt includes those tagged with the goal id or untagged.`,
	}
	var tags []string
	var asJSON bool
	add := &cobra.Command{
		Use:   "add TEXT [--tag T]... [--json]",
		Short: "Record a lesson",
		Args:  cmdutil.ExactArgs(1, "the lesson text"),
		RunE: func(cmd *cobra.Command, args []string) error {
			written, err := f.App().AddLesson(cmd.Context(), args[0], tags)
			switch {
			case err != nil:
				return err
			case asJSON:
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"written": written})
			case written:
				fmt.Fprintln(f.IO.Out, "recorded the lesson")
			default:
				fmt.Fprintln(f.IO.Out, "this lesson is already recorded")
			}
			return nil
		},
	}
	add.Flags().StringArrayVar(&tags, "tag", nil, "a tag (repeatable)")
	cmdutil.AddJSONFlags(add, &asJSON, `print {"written"} as JSON: false when the lesson was recorded before`)
	var lsTags []string
	ls := &cobra.Command{
		Use:   "ls [--tag T]... [--json]",
		Short: "List lessons, newest first",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := f.App().Lessons(cmd.Context(), lsTags)
			switch {
			case err != nil:
				return err
			case asJSON:
				return cmdutil.ExportJSON(cmd, f.IO.Out, out)
			}
			for _, x := range out {
				fmt.Fprintf(f.IO.Out, "%s  [%s]  %s\n", x.Time[:10], strings.Join(x.Tags, ","), x.Text)
			}
			return nil
		},
	}
	ls.Flags().StringArrayVar(&lsTags, "tag", nil, "only lessons with this tag")
	cmdutil.AddJSONFlags(ls, &asJSON, "print as JSON")
	cmd.AddCommand(add, ls)
	return cmd
}
