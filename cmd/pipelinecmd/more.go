package pipelinecmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
)

func newCmdReview(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	var adapter, base, head, gate string
	var own []string
	var budget time.Duration
	cmd := &cobra.Command{
		Use:   "review PROJECT [--json] [--adapter NAME] | review --base REV [--head REV] [--gate CMD] [--own GLOB]... [--json]",
		Short: "Adversarial review: re-run every gate, check commits against perimeters, scan for fake work",
		Long: `Review reports and never fixes. It re-runs every gate, diffs each WP's commits
against its brief's perimeter, and scans the added code for the classic
fake-work patterns: tests with no assertion, skipped or deleted tests,
swallowed errors and recovered panics, not-implemented stubs and TODO
placeholders, mocks standing in for the unit under test, production code
returning the value a test expects, gate scripts that pipe away exit codes.
With --adapter, a reviewer session also reads the review brief and its
report is attached. Exit 1 when there are findings.

With --base (and --head, default HEAD) instead of a plan, review judges one
change the same way — what a CI job reviewing a pull request runs; --gate
is the command that must pass on it. Nothing is recorded.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if base != "" || head != "" || gate != "" || len(own) > 0 {
				if len(args) != 0 || adapter != "" {
					return fmt.Errorf("review takes either a plan name or --base/--head/--gate, not both")
				}
				return reviewChange(cmd, f, base, head, pipeline.ChangeOptions{Gate: gate, Own: own, MutationBudget: budget}, asJSON)
			}
			if len(args) != 1 {
				return fmt.Errorf("review needs one plan name, or --base REV for one change")
			}
			e, cfg, err := env(f, args[0])
			if err != nil {
				return err
			}
			r, err := e.Review(duration(cfg.Dispatch.GateTimeout), duration(cfg.Review.MutationBudget))
			if err != nil {
				return err
			}
			var report []byte
			if adapter != "" {
				id, out, err := reviewer(f, e, cfg, adapter, r)
				if err != nil {
					return err
				}
				r.Reviewer, report = id, out
			}
			if err := e.RecordReview(r, report); err != nil {
				return err
			}
			if asJSON {
				cmdutil.ExportJSON(cmd, f.IO.Out, r)
			} else {
				for _, g := range r.Gates {
					fmt.Fprintf(f.IO.Out, "gate %-12s exit %d\n", g.Where, g.Gate.ExitCode)
				}
				printFindings(f, r.Findings)
				fmt.Fprintf(f.IO.Out, "review of %s: %d findings%s\n", e.Project.Name, errorCount(r.Findings), warnings(r.Findings))
				if r.Reviewer != "" {
					fmt.Fprintf(f.IO.Out, "reviewer session %s; its report is attached to the review event\n", r.Reviewer)
				}
			}
			if !r.OK {
				return cmdutil.Silent(fmt.Errorf("review found %d problems", errorCount(r.Findings)))
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the review as JSON")
	cmd.Flags().StringVar(&adapter, "adapter", "", "also run a reviewer session with this adapter")
	cmd.Flags().StringVar(&base, "base", "", "review the change from this revision (no plan)")
	cmd.Flags().StringVar(&head, "head", "", "to this revision (default HEAD)")
	cmd.Flags().StringVar(&gate, "gate", "", "the command that must pass on the change")
	cmd.Flags().DurationVar(&budget, "mutation-budget", -1, "bound of the mutation smoke (default [review] mutation_budget; 0 turns it off)")
	cmd.Flags().StringArrayVar(&own, "own", nil, "a glob the change may touch (repeatable; default: any path)")
	return cmd
}

// errorCount counts the findings that fail a review; warnings do not.
func errorCount(fs []pipeline.Finding) int {
	n := 0
	for _, f := range fs {
		if f.Severity != "warning" {
			n++
		}
	}
	return n
}

func warnings(fs []pipeline.Finding) string {
	if n := len(fs) - errorCount(fs); n > 0 {
		return fmt.Sprintf(" (and %d warnings)", n)
	}
	return ""
}

// reviewChange reviews one change with no plan and records nothing.
func reviewChange(cmd *cobra.Command, f *cmdutil.Factory, base, head string, opt pipeline.ChangeOptions, asJSON bool) error {
	if base == "" {
		return fmt.Errorf("--base is needed to review a change")
	}
	if head == "" {
		head = "HEAD"
	}
	repo, err := f.Repo()
	if err != nil {
		return err
	}
	cfg, _, err := f.Config()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), duration(cfg.Dispatch.GateTimeout))
	defer cancel()
	if opt.MutationBudget < 0 {
		opt.MutationBudget = duration(cfg.Review.MutationBudget)
	}
	r, err := pipeline.ReviewChange(ctx, repo, base, head, opt)
	if err != nil {
		return err
	}
	if asJSON {
		if err := cmdutil.ExportJSON(cmd, f.IO.Out, r); err != nil {
			return err
		}
	} else {
		for _, g := range r.Gates {
			fmt.Fprintf(f.IO.Out, "gate %-12s exit %d\n", g.Where, g.Gate.ExitCode)
		}
		printFindings(f, r.Findings)
		fmt.Fprintf(f.IO.Out, "review of %.12s..%.12s: %d findings%s\n", r.Base, r.Head, errorCount(r.Findings), warnings(r.Findings))
	}
	if !r.OK {
		return cmdutil.Silent(fmt.Errorf("review found %d problems", errorCount(r.Findings)))
	}
	return nil
}

// reviewer runs a review session on a brief written for it and returns its
// output.
func reviewer(f *cmdutil.Factory, e *pipeline.Env, cfg config.Config, adapter string, r *pipeline.ReviewResult) (string, []byte, error) {
	found, err := host.Discover(adapter, cfg.Plugins, e.Repo.WorkTree)
	if err != nil {
		return "", nil, err
	}
	launch := profiles.Launch{Adapter: adapter}
	if err := launch.RequireTrust(cfg, e.Repo.WorkTree, e.Repo.CommonDir, e.Repo.WorkTree, ""); err != nil {
		return "", nil, err
	}
	brief := filepath.Join(e.Project.Dir, "REVIEW-brief.md")
	var b strings.Builder
	fmt.Fprintf(&b, "# Review brief: plan %s\n\nYou review; you never fix. Read SPEC.md, CONTRACT.md and the WP briefs beside this file,\nthen the integration branch %s. Report every place where the code does not do\nwhat the briefs say, with file, line and why. The mechanical findings so far:\n\n", e.Project.Name, pipeline.IntegrationSlug(e.Project.Name))
	for _, fd := range r.Findings {
		fmt.Fprintf(&b, "- %s %s:%d %s\n", fd.Code, fd.File, fd.Line, fd.Message)
	}
	if err := os.WriteFile(brief, []byte(b.String()), 0o644); err != nil {
		return "", nil, err
	}
	c, err := sessionsClient(f)
	if err != nil {
		return "", nil, err
	}
	prompt := fmt.Sprintf("You are the adversarial reviewer of plan %s.\nYour task is your brief: %s\nReport only; change nothing.\n", e.Project.Name, brief)
	resp, err := c.Call(&sessions.Request{Op: "start", Start: &sessions.StartArgs{Adapter: adapter, Path: found.Path, SHA256: found.SHA256,
		Dir: e.Repo.WorkTree, Prompt: prompt, Label: e.Project.Name + "/review", Env: os.Environ(), Options: launch.Options(cfg)}})
	if err != nil {
		return "", nil, err
	}
	id := resp.Session.ID
	if _, err := c.Call(&sessions.Request{Op: "wait", IDs: []string{id}, Until: "turn-end", Timeout: cfg.Dispatch.Timeout}); err != nil {
		return id, nil, err
	}
	out, _ := os.ReadFile(sessions.NewStore(e.Repo.CommonDir).OutputPath(id))
	c.Call(&sessions.Request{Op: "kill", ID: id})
	return id, out, nil
}

func newCmdE2E(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "e2e PROJECT [--json]",
		Short: "Run the [e2e] commands against the integration worktree and record their exit codes",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, cfg, err := env(f, args[0])
			if err != nil {
				return err
			}
			if len(cfg.E2E.Commands) == 0 {
				return fault.Invalidf("no [e2e] commands in %s", config.FileName)
			}
			r, err := e.E2E(cfg.E2E.Commands, duration(cfg.Dispatch.GateTimeout))
			if err != nil {
				return err
			}
			if asJSON {
				cmdutil.ExportJSON(cmd, f.IO.Out, r)
			} else {
				for _, c := range r.Commands {
					fmt.Fprintf(f.IO.Out, "%s: exit %d (%s)\n", c.Gate.Command, c.Gate.ExitCode, c.Gate.Duration)
				}
			}
			if !r.OK {
				return cmdutil.Silent(fmt.Errorf("e2e failed"))
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the result as JSON")
	return cmd
}

// prTarget works out the repository from [pr] or the remote URL.
func prTarget(e *pipeline.Env, cfg config.Config) (forge.Repo, error) {
	var repo forge.Repo
	if cfg.PR.Repo != "" {
		owner, name, _ := strings.Cut(cfg.PR.Repo, "/")
		repo = forge.Repo{Host: "github.com", Owner: owner, Name: name}
	} else {
		u, err := e.Repo.Git("remote", "get-url", cfg.PR.Remote)
		if err != nil {
			return repo, fault.Invalidf("no remote %q names the GitHub repository: add one (git remote add %s https://github.com/OWNER/NAME), or set [pr] repo = \"OWNER/NAME\" in %s", cfg.PR.Remote, cfg.PR.Remote, config.FileName)
		}
		if repo, err = forge.ParseRemote(strings.TrimSpace(string(u))); err != nil {
			return repo, err
		}
	}
	if cfg.PR.Host != "" {
		repo.Host = cfg.PR.Host
	}
	return repo, nil
}

func newCmdPR(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "pr <command>", Short: "Open the plan's pull request on GitHub (never merged by agentproto)"}
	var draft, dryRun, asJSON bool
	var base, title string
	open := &cobra.Command{
		Use:   "open PROJECT [--draft] [--base B] [--title T] [--dry-run] [--json]",
		Short: "Push the integration branch and open (or update) its pull request",
		Long: `Push wt/PROJECT-integration with the git CLI, then POST /repos/{owner}/{repo}/pulls
through go-gh: github.com or an Enterprise host, owner/repo from the remote URL
(or [pr] repo/host). The token comes from GH_TOKEN, GITHUB_TOKEN or gh's own
configuration and is never printed. The body comes from the ledger. A pull
request that already exists is found and its body updated. --dry-run prints
the push and the request and sends nothing.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, cfg, err := env(f, args[0])
			if err != nil {
				return err
			}
			repo, err := prTarget(e, cfg)
			if err != nil {
				return err
			}
			o := pipeline.PROptions{Remote: cfg.PR.Remote, Repo: repo, Base: base, Title: title, Draft: draft || cfg.PR.Draft,
				DryRun: dryRun, AgentsFile: cfg.Plans.AgentInstructions}
			if !dryRun {
				if o.Token, err = forge.Token(repo.Host); err != nil {
					return err
				}
				o.Transport = testTransport()
			}
			r, text, err := e.OpenPR(o)
			if err != nil {
				return err
			}
			if dryRun && asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"project": args[0], "repo": repo.String(), "dry_run": true, "request": text})
			}
			if dryRun {
				fmt.Fprint(f.IO.Out, text)
				return nil
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, r)
			}
			verb := "opened"
			if r.Updated {
				verb = "updated"
			}
			fmt.Fprintf(f.IO.Out, "%s pull request #%d: %s\n", verb, r.Number, r.URL)
			return nil
		},
	}
	open.Flags().BoolVar(&draft, "draft", false, "open as a draft")
	open.Flags().StringVar(&base, "base", "", "base branch (default: the plan's base)")
	open.Flags().StringVar(&title, "title", "", "title (default: agentproto: PROJECT)")
	open.Flags().BoolVar(&dryRun, "dry-run", false, "print the request; send nothing")
	cmdutil.AddJSONFlags(open, &asJSON, "print the result as JSON")
	cmd.AddCommand(open, newCmdPRComment(f))
	return cmd
}
