package worktreecmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/worktree"
)

// NewOptions are the inputs of `worktree new`.
type NewOptions struct {
	Slug    string
	Base    string
	Branch  string
	NoSetup bool
	JSON    bool
	Export  *cmdutil.Exporter
}

func newCmdNew(f *cmdutil.Factory) *cobra.Command {
	o := &NewOptions{}
	cmd := &cobra.Command{
		Use:   "new SLUG [--base REV] [--branch NAME] [--no-setup] [--json]",
		Short: "Create a linked worktree on branch wt/SLUG and run its trusted setup hooks",
		Args:  cmdutil.ExactArgs(1, "one slug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Slug = args[0]
			return newRun(f, o)
		},
	}
	cmd.Flags().StringVar(&o.Base, "base", "", "base revision (default: [worktree] base, origin/HEAD, HEAD)")
	cmd.Flags().StringVar(&o.Branch, "branch", "", "branch name (default wt/SLUG)")
	cmd.Flags().BoolVar(&o.NoSetup, "no-setup", false, "skip the setup hooks and copies")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the worktree as JSON")
	return cmd
}

func newRun(f *cmdutil.Factory, o *NewOptions) error {
	start := time.Now()
	if err := worktree.ValidateSlug(o.Slug); err != nil {
		return err
	}
	repo, err := f.Repo()
	if err != nil {
		return err
	}
	cfg, _, err := f.Config()
	if err != nil {
		return err
	}
	baseName, baseCommit, err := worktree.ResolveBase(repo, o.Base, cfg.Worktree.Base)
	if err != nil {
		return err
	}
	path, err := worktree.Location(repo, cfg.Worktree.Root, o.Slug)
	if err != nil {
		return err
	}
	hooks := &worktree.Hooks{}
	if !o.NoSetup {
		if hooks, err = worktree.HooksAt(repo, baseCommit); err != nil {
			return err
		}
		if err := worktree.RequireTrust(repo, hooks, baseName); err != nil {
			return err
		}
	}
	m, err := worktree.Provision(repo, worktree.NewOptions{Slug: o.Slug, Path: path, Branch: o.Branch, Base: baseName, BaseCommit: baseCommit,
		Submodules: cfg.Worktree.Submodules})
	if err != nil {
		return err
	}
	data := map[string]any{"slug": m.Slug, "path": m.Path, "branch": m.Branch, "base": m.Base,
		"base_commit": m.BaseCommit, "head": m.BaseCommit, "checkout": m.Checkout}
	if m.CheckoutReason != "" {
		data["checkout_reason"] = m.CheckoutReason
	}
	var atts []gitstore.AttachmentInput
	var setupErr error
	if !hooks.Empty() {
		copied, err := worktree.CopyFiles(mainWorkTree(repo), hooks.Copy, m, f.IO.ErrOut)
		log, herr := []byte(nil), err
		if err == nil {
			log, herr = worktree.RunHooks("setup", hooks.Setup, m, hooks.Env, f.IO.ErrOut)
		}
		data["setup"] = map[string]any{"commands": hooks.Setup, "copied": copied, "ok": herr == nil}
		if len(log) > 0 {
			atts = append(atts, gitstore.AttachmentInput{Name: "setup.log", Content: log})
		}
		if herr != nil {
			setupErr = herr
			data["failure"] = herr.Error()
			if err := worktree.MarkFailed(repo, m, herr); err != nil {
				return err
			}
		}
	}
	data["duration_ms"] = time.Since(start).Milliseconds()
	if err := record(f, "worktree_provisioned", eventID(m.Slug, "provisioned", start), data, atts); err != nil {
		return err
	}
	if setupErr != nil {
		return fmt.Errorf("%w; the worktree is kept for inspection at %s (marked %s)", setupErr, m.Path, worktree.StateSetupFailed)
	}
	if o.JSON {
		return o.Export.Write(f.IO.Out, m)
	}
	fmt.Fprintf(f.IO.Out, "created worktree %s at %s (branch %s from %s %.12s)\n", m.Slug, m.Path, m.Branch, m.Base, m.BaseCommit)
	if m.Checkout == worktree.CheckoutGit {
		fmt.Fprintf(f.IO.Out, "checked out by git: %s\n", m.CheckoutReason)
	}
	return nil
}
