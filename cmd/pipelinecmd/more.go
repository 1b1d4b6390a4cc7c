package pipelinecmd

import (
	"context"
	"fmt"
	"os"
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
	var adapter, profile, base, head, gate string
	var own []string
	var budget time.Duration
	cmd := &cobra.Command{
		Use:   "review PROJECT [--json] [--adapter NAME|--profile P] | review --base REV [--head REV] [--gate CMD] [--own GLOB]... [--json]",
		Short: "Adversarial review: re-run every gate, check commits against perimeters, scan for fake work",
		Long: `Review reports and never fixes. It re-runs every gate, diffs each WP's commits
against its brief's perimeter, and scans the added code for the classic
fake-work patterns: tests with no assertion, skipped or deleted tests,
swallowed errors and recovered panics, not-implemented stubs and TODO
placeholders, mocks standing in for the unit under test, production code
returning the value a test expects, gate scripts that pipe away exit codes.
With --adapter or --profile, a reviewer session also reads the static
findings, the diff and the plan's REVIEW.md, confirms or refutes each
finding and adds its own; its verdicts and report are attached to the
review, and never make it pass. Exit 1 when there are findings.

With --base (and --head, default HEAD) instead of a plan, review judges one
change the same way — what a CI job reviewing a pull request runs; --gate
is the command that must pass on it. Nothing is recorded.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if base != "" || head != "" || gate != "" || len(own) > 0 {
				if len(args) != 0 || adapter != "" || profile != "" {
					return fmt.Errorf("review takes either a plan name or --base/--head/--gate, not both")
				}
				return reviewChange(f, base, head, pipeline.ChangeOptions{Gate: gate, Own: own, MutationBudget: budget}, asJSON)
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
			if adapter != "" || profile != "" {
				if adapter != "" && profile != "" {
					return fault.Invalidf("--profile names the adapter; do not give --adapter too")
				}
				if report, err = reviewer(f, e, cfg, adapter, profile, r); err != nil {
					return err
				}
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
					printVerdicts(f, r)
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
	cmd.Flags().StringVar(&profile, "profile", "", "also run a reviewer session with this profile ([profiles.NAME])")
	cmd.Flags().StringVar(&base, "base", "", "review the change from this revision (no plan)")
	cmd.Flags().StringVar(&head, "head", "", "to this revision (default HEAD)")
	cmd.Flags().StringVar(&gate, "gate", "", "the command that must pass on the change")
	cmd.Flags().DurationVar(&budget, "mutation-budget", -1, "bound of the mutation smoke (default [review] mutation_budget; 0 turns it off)")
	cmd.Flags().StringArrayVar(&own, "own", nil, "a glob the change may touch (repeatable; default: any path)")
	return cmd
}

// printVerdicts shows what the reviewer session said; it never changes
// the review's outcome.
func printVerdicts(f *cmdutil.Factory, r *pipeline.ReviewResult) {
	v := r.ReviewerVerdicts
	if v == nil {
		return
	}
	for _, fv := range v.Verdicts {
		fmt.Fprintf(f.IO.Out, "reviewer: %s %s: %s\n", fv.Finding, fv.Verdict, fv.Why)
	}
	for _, fd := range v.Findings {
		fmt.Fprintf(f.IO.Out, "reviewer: %s %s:%d %s\n", fd.Severity, fd.File, fd.Line, fd.Message)
	}
	if v.Problem != "" {
		fmt.Fprintf(f.IO.Out, "reviewer: its answer is incomplete: %s\n", v.Problem)
	}
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
func reviewChange(f *cmdutil.Factory, base, head string, opt pipeline.ChangeOptions, asJSON bool) error {
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
		cmdutil.WriteJSON(f.IO.Out, r)
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

// reviewer resolves the reviewer session's launch (an adapter or a
// profile) and runs the LLM leg of the review on r.
func reviewer(f *cmdutil.Factory, e *pipeline.Env, cfg config.Config, adapter, profile string, r *pipeline.ReviewResult) ([]byte, error) {
	launch := profiles.Launch{Adapter: adapter, Profile: profile}
	start := sessions.StartArgs{Env: os.Environ(), Profile: profile}
	if profile != "" {
		p, err := profiles.Resolve(cfg, profile)
		if err != nil {
			return nil, err
		}
		launch.Adapter, start.Model = p.Adapter, p.Model
		if p.KeyEnv != "" {
			start.AllowEnv = []string{p.KeyEnv}
		}
	}
	found, err := host.Discover(launch.Adapter, cfg.Plugins, e.Repo.WorkTree)
	if err != nil {
		return nil, err
	}
	if err := launch.RequireTrust(cfg, e.Repo.WorkTree, e.Repo.CommonDir, e.Repo.WorkTree, ""); err != nil {
		return nil, err
	}
	c, err := sessionsClient(f)
	if err != nil {
		return nil, err
	}
	start.Adapter, start.Path, start.SHA256, start.Options = launch.Adapter, found.Path, found.SHA256, launch.Options(cfg)
	return e.LLMReview(pipeline.ReviewerLaunch{Sessions: c, Start: start, Timeout: cfg.Dispatch.Timeout}, r)
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
			return repo, fault.Invalidf("no remote %q to open a pull request on", cfg.PR.Remote)
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
	cmd.AddCommand(open)
	return cmd
}
