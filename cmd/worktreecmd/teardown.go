package worktreecmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/worktree"
)

func newCmdRm(f *cmdutil.Factory) *cobra.Command {
	var o worktree.RemoveOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rm SLUG [--discard-modified] [--discard-untracked] [--json]",
		Short: "Remove a worktree; refuses a dirty tree unless told which losses are accepted",
		Long: `Remove the worktree and its admin dir after its teardown hooks. The branch is
kept. A tree with modified or untracked files is refused (exit 5) unless
--discard-modified / --discard-untracked accept that exact loss; to keep
everything instead, use worktree archive.`,
		Args: cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			mg, err := manager(f, false)
			if err != nil {
				return err
			}
			r, err := mg.Remove(args[0], o)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, r)
			}
			if a := r.Abandoned; a != nil {
				fmt.Fprintf(f.IO.Out, "removed the half-made worktree %s (left by an interrupted worktree new, pid %d)\n", a.Slug, a.Pid)
				return nil
			}
			fmt.Fprintf(f.IO.Out, "removed worktree %s (branch %s kept)\n", r.Meta.Slug, r.Meta.Branch)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.DiscardModified, "discard-modified", false, "accept losing modified tracked files")
	cmd.Flags().BoolVar(&o.DiscardUntracked, "discard-untracked", false, "accept losing untracked files")
	cmdutil.AddJSONFlags(cmd, &asJSON, `print what was removed as JSON: {"meta"} or, for a half-made worktree, {"abandoned"}`)
	return cmd
}

func newCmdArchive(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "archive SLUG [--json]",
		Short: "Save the worktree's whole state on refs/agentproto/salvage/SLUG/..., then remove it",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			mg, err := manager(f, false)
			if err != nil {
				return err
			}
			s, err := mg.Archive(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, s)
			}
			fmt.Fprintf(f.IO.Out, "archived worktree %s as %s and removed it (git agentproto worktree restore %s brings it back)\n", s.Meta.Slug, s.Ref, s.Meta.Slug)
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the salvage as JSON")
	return cmd
}

func newCmdRestore(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "restore SLUG [--json]",
		Short: "Bring back the latest archived state of a worktree",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := worktree.ValidateSlug(args[0]); err != nil {
				return err
			}
			mg, err := manager(f, false)
			if err != nil {
				return err
			}
			m, s, err := mg.Restore(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"meta": m, "salvage": s})
			}
			fmt.Fprintf(f.IO.Out, "restored worktree %s at %s from %s\n", m.Slug, m.Path, s.Ref)
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, `print the restored worktree and the salvage it came from as JSON: {"meta","salvage"}`)
	return cmd
}

func newCmdGC(f *cmdutil.Factory) *cobra.Command {
	var apply, asJSON bool
	cmd := &cobra.Command{
		Use:   "gc [--apply] [--json]",
		Short: "Sort worktrees into reclaim / salvage / hold; act only with --apply",
		Long: `reclaim: clean, idle, and merged, squash-merged or without commits, or left half
         made by an interrupted worktree new: removed.
salvage: uncommitted work and no session attached: archived, then removed.
hold:    a session attached, or commits not in the base: left alone.
Without --apply this is a dry run.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			mg, err := manager(f, false)
			if err != nil {
				return err
			}
			live := liveWorktrees(mg.Repo)
			rows, err := mg.GC(apply, func(m *worktree.Meta) bool { return live[m.Slug] || live[m.Path] })
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, rows)
			}
			for _, r := range rows {
				done := ""
				if r.Done != "" {
					done = " -> " + r.Done
				}
				fmt.Fprintf(f.IO.Out, "%-8s %-20s %s%s\n", r.Action, r.Slug, r.Reason, done)
			}
			if !apply && len(rows) > 0 {
				fmt.Fprintln(f.IO.Out, "(dry run: nothing changed; use --apply)")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&apply, "apply", false, "remove reclaimable worktrees and archive salvageable ones")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}
