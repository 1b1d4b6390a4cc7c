package worktreecmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/worktree"
)

// teardown runs the trusted teardown hooks of the worktree's base, if any.
func teardown(f *cmdutil.Factory, repo *gitrepo.Repo, m *worktree.Meta) ([]byte, error) {
	hooks, err := worktree.HooksAt(repo, m.BaseCommit)
	if err != nil || len(hooks.Teardown) == 0 {
		return nil, err
	}
	if err := worktree.RequireTrust(repo, hooks, m.Base); err != nil {
		return nil, err
	}
	return worktree.RunHooks("teardown", hooks.Teardown, m, hooks.Env, f.IO.ErrOut)
}

func logAttachment(log []byte) []gitstore.AttachmentInput {
	if len(log) == 0 {
		return nil
	}
	return []gitstore.AttachmentInput{{Name: "teardown.log", Content: log}}
}

func newCmdRm(f *cmdutil.Factory) *cobra.Command {
	var o worktree.RemoveOptions
	cmd := &cobra.Command{
		Use:   "rm SLUG [--discard-modified] [--discard-untracked]",
		Short: "Remove a worktree; refuses a dirty tree unless told which losses are accepted",
		Long: `Remove the worktree and its admin dir after its teardown hooks. The branch is
kept. A tree with modified or untracked files is refused (exit 5) unless
--discard-modified / --discard-untracked accept that exact loss; to keep
everything instead, use worktree archive.`,
		Args: cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, m, err := load(f, args[0])
			if err != nil {
				if repo == nil || worktree.ValidateSlug(args[0]) != nil {
					return err
				}
				if a, ok := worktree.FindAbandoned(repo, args[0]); ok {
					if err := removeAbandoned(f, repo, a, "rm"); err != nil {
						return err
					}
					fmt.Fprintf(f.IO.Out, "removed the half-made worktree %s (left by an interrupted worktree new, pid %d)\n", a.Slug, a.Pid)
					return nil
				}
				return err
			}
			// Refuse before any teardown hook runs.
			if s, err := worktree.State(repo, m); err == nil && ((s.Modified > 0 && !o.DiscardModified) || (s.Untracked > 0 && !o.DiscardUntracked)) {
				return worktree.Remove(repo, m, o)
			}
			log, err := teardown(f, repo, m)
			if err != nil {
				return err
			}
			if err := worktree.Remove(repo, m, o); err != nil {
				return err
			}
			now := time.Now()
			if err := record(f, "worktree_removed", eventID(m.Slug, "removed", now), map[string]any{"slug": m.Slug, "path": m.Path, "branch": m.Branch, "discard_modified": o.DiscardModified, "discard_untracked": o.DiscardUntracked}, logAttachment(log)); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "removed worktree %s (branch %s kept)\n", m.Slug, m.Branch)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.DiscardModified, "discard-modified", false, "accept losing modified tracked files")
	cmd.Flags().BoolVar(&o.DiscardUntracked, "discard-untracked", false, "accept losing untracked files")
	return cmd
}

// removeAbandoned removes a worktree an interrupted `worktree new` left
// half made, and records it; by names the command that did.
func removeAbandoned(f *cmdutil.Factory, repo *gitrepo.Repo, a worktree.Abandoned, by string) error {
	if err := worktree.RemoveAbandoned(repo, a); err != nil {
		return err
	}
	data := map[string]any{"slug": a.Slug, "path": a.Path, "branch": a.Branch, "abandoned_by_pid": a.Pid, "by": by}
	return record(f, "worktree_removed", eventID(a.Slug, "removed", time.Now()), data, nil)
}

func archive(f *cmdutil.Factory, repo *gitrepo.Repo, m *worktree.Meta) (*worktree.Salvage, error) {
	now := time.Now()
	log, err := teardown(f, repo, m)
	if err != nil {
		return nil, err
	}
	s, err := worktree.Archive(repo, m, now)
	if err != nil {
		return s, err
	}
	return s, record(f, "worktree_archived", eventID(m.Slug, "archived", now), map[string]any{"slug": m.Slug, "salvage_ref": s.Ref, "commit": s.Commit, "head": s.Head}, logAttachment(log))
}

func newCmdArchive(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "archive SLUG [--json]",
		Short: "Save the worktree's whole state on refs/agentproto/salvage/SLUG/..., then remove it",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, m, err := load(f, args[0])
			if err != nil {
				return err
			}
			s, err := archive(f, repo, m)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, s)
			}
			fmt.Fprintf(f.IO.Out, "archived worktree %s as %s and removed it (git agentproto worktree restore %s brings it back)\n", m.Slug, s.Ref, m.Slug)
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the salvage as JSON")
	return cmd
}

func newCmdRestore(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "restore SLUG",
		Short: "Bring back the latest archived state of a worktree",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := worktree.ValidateSlug(args[0]); err != nil {
				return err
			}
			repo, err := f.Repo()
			if err != nil {
				return err
			}
			s, err := worktree.LatestSalvage(repo, args[0])
			if err != nil {
				return err
			}
			m, err := worktree.Restore(repo, s)
			if err != nil {
				return err
			}
			now := time.Now()
			if err := record(f, "worktree_restored", eventID(m.Slug, "restored", now), map[string]any{"slug": m.Slug, "salvage_ref": s.Ref, "path": m.Path}, nil); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "restored worktree %s at %s from %s\n", m.Slug, m.Path, s.Ref)
			return nil
		},
	}
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
			repo, err := f.Repo()
			if err != nil {
				return err
			}
			all, err := worktree.All(repo)
			if err != nil {
				return err
			}
			type row struct {
				worktree.Class
				Done   string `json:"done,omitempty"`
				Salvag string `json:"salvage_ref,omitempty"`
			}
			rows := []row{}
			live := liveWorktrees(repo)
			classes, err := worktree.Classify(repo, all, func(m *worktree.Meta) bool { return live[m.Slug] || live[m.Path] })
			if err != nil {
				return err
			}
			for i, m := range all {
				c := classes[i]
				r := row{Class: c}
				if apply {
					switch c.Action {
					case "reclaim":
						log, err := teardown(f, repo, m)
						if err == nil {
							err = worktree.Remove(repo, m, worktree.RemoveOptions{})
						}
						if err != nil {
							return err
						}
						if err := record(f, "worktree_removed", eventID(m.Slug, "removed", time.Now()), map[string]any{"slug": m.Slug, "path": m.Path, "by": "gc"}, logAttachment(log)); err != nil {
							return err
						}
						r.Done = "removed"
					case "salvage":
						s, err := archive(f, repo, m)
						if err != nil {
							return err
						}
						r.Done, r.Salvag = "archived", s.Ref
					}
				}
				rows = append(rows, r)
			}
			// What an interrupted worktree new left: only its own partial checkout.
			for _, a := range worktree.AllAbandoned(repo) {
				r := row{Class: worktree.Class{Slug: a.Slug, Action: "reclaim",
					Reason: fmt.Sprintf("left half made by an interrupted worktree new (pid %d)", a.Pid)}}
				if apply {
					if err := removeAbandoned(f, repo, a, "gc"); err != nil {
						return err
					}
					r.Done = "removed"
				}
				rows = append(rows, r)
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
