// Package pipelinecmd wires the supervisor pipeline: dispatch, verify,
// checkpoint, consolidate, review, e2e, pr open and run.
package pipelinecmd

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
)

// Commands returns the pipeline commands for the root.
func Commands(f *cmdutil.Factory) []*cobra.Command {
	return []*cobra.Command{newCmdDispatch(f), newCmdVerify(f), newCmdCheckpoint(f), newCmdConsolidate(f),
		newCmdReview(f), newCmdE2E(f), newCmdPR(f), newCmdRun(f)}
}

// env loads a plan, its history and the ledger.
func env(f *cmdutil.Factory, project string) (*pipeline.Env, config.Config, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, config.Config{}, err
	}
	cfg, _, err := f.Config()
	if err != nil {
		return nil, cfg, err
	}
	p, err := plans.Load(repo.WorkTree, project)
	if err != nil {
		return nil, cfg, err
	}
	l, err := f.Ledger()
	if err != nil {
		return nil, cfg, err
	}
	h, err := plans.ReadHistory(l, p.Name)
	if err != nil {
		return nil, cfg, err
	}
	return &pipeline.Env{Repo: repo, Ledger: l, Project: p, History: h}, cfg, nil
}

func duration(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

func sessionsClient(f *cmdutil.Factory) (*sessions.Client, error) { return f.Sessions() }

func newCmdDispatch(f *cmdutil.Factory) *cobra.Command {
	var wps []string
	var maxParallel int
	var noWait, noPing, asJSON bool
	var timeout string
	cmd := &cobra.Command{
		Use:   "dispatch PROJECT [--wp WPn]... [--max-parallel N] [--no-wait] [--no-ping] [--timeout 40m] [--json]",
		Short: "Run work packages: WP0 first and alone, then the others in parallel, each verified on disk",
		Long: `Start one session per work package in its own worktree (wt/PROJECT-wpN, setup
hooks run), prompted with plan render. WP0 runs first and alone; once it is
verified the WPs it unblocks run in parallel (at most --max-parallel). After
each wave the sessions are waited for and verified on disk; a failed
verification stops with what to do next. Running dispatch again continues
where it stopped: worktrees, live sessions and passing verifications are
reused, not redone. Refuses an unfrozen plan or one whose files drifted.
Each session first answers a liveness ping ("Reply with exactly READY") and
only then gets its brief; an agent that cannot answer it (a script that
ignores its prompt) fails to start: --no-ping skips the ping.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, cfg, err := env(f, args[0])
			if err != nil {
				return err
			}
			if rep := checkPlan(e, cfg); !rep.OK {
				return fmt.Errorf("plan %s has %d errors (git agentproto plan check %s)", e.Project.Name, rep.Errors, e.Project.Name)
			}
			c, err := sessionsClient(f)
			if err != nil {
				return err
			}
			if maxParallel == 0 {
				maxParallel = cfg.Dispatch.MaxParallel
			}
			if timeout == "" {
				timeout = cfg.Dispatch.Timeout
			}
			if d := duration(timeout); d <= 0 {
				return fmt.Errorf("--timeout %q needs a unit, such as 40m", timeout)
			}
			d := &pipeline.Dispatcher{Env: e, Sessions: c, Config: cfg, MaxParallel: maxParallel, Wait: !noWait,
				Timeout: duration(timeout), GateTimeout: duration(cfg.Dispatch.GateTimeout), Out: f.IO.Out, CallerEnv: os.Environ(),
				TTY: f.IO.IsStdoutTTY(), NoPing: noPing}
			if !asJSON {
				if err := d.Run(wps); err != nil {
					return err
				}
				done, next, err := dispatchDone(e, wps, !noWait)
				if err == nil {
					fmt.Fprintf(f.IO.Out, "\n%s\nnext: %s\n", done, next)
				}
				return err
			}
			// Progress to a watching stderr; stdout gets the latest verifications.
			d.Out, d.TTY = f.IO.Progress(), false
			runErr := d.Run(wps)
			st, err := pipeline.ReadState(e.Ledger, e.Project.Name)
			if err != nil {
				return errors.Join(runErr, err)
			}
			doc := map[string]any{"project": e.Project.Name, "ok": runErr == nil, "verifications": st.Verifications}
			if runErr != nil {
				doc["error"] = runErr.Error()
			} else if _, next, err := dispatchDone(e, wps, !noWait); err == nil {
				doc["next"] = next
			}
			if err := cmdutil.ExportJSON(cmd, f.IO.Out, doc); err != nil {
				return err
			}
			return runErr
		},
	}
	cmd.Flags().BoolVar(&noPing, "no-ping", false, `skip the liveness ping ("Reply with exactly READY") before the brief`)
	cmd.Flags().StringArrayVar(&wps, "wp", nil, "only this work package (repeatable)")
	cmd.Flags().IntVar(&maxParallel, "max-parallel", 0, "sessions at once (default [dispatch] max_parallel)")
	cmd.Flags().BoolVar(&noWait, "no-wait", false, "start the sessions and return")
	cmd.Flags().StringVar(&timeout, "timeout", "", "how long to wait for a wave (default [dispatch] timeout)")
	cmdutil.AddJSONFlags(cmd, &asJSON, "progress on stderr; print the verifications as JSON")
	return cmd
}

func checkPlan(e *pipeline.Env, cfg config.Config) *plans.Report {
	contract, err := plans.ContractBlock(e.Repo.WorkTree, cfg.Plans)
	if err != nil {
		return &plans.Report{Errors: 1}
	}
	in := plans.CheckInput{Contract: contract, WorkTree: e.Repo.WorkTree, AgentInstructions: cfg.Plans.AgentInstructions}
	if e.History.Frozen != nil {
		if bt, err := plans.ReadBaseTree(e.Repo, e.History.Frozen.BaseCommit); err == nil {
			in = in.WithBase(bt)
		}
	}
	return plans.Check(e.Project, in)
}

func newCmdVerify(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	var branch, commit string
	cmd := &cobra.Command{
		Use:   "verify PROJECT WPn [--json] | verify --branch wt/PROJECT-wpN [--commit REV] [--json]",
		Short: "Verify a work package on disk: changed paths vs its perimeter, the gate re-run; exit 0 only on pass",
		Long: `Verify a work package in its worktree against the disk; exit 0 only on pass.

With --branch (in CI, where the worktree is not), hold --commit (default HEAD)
against the ledger's latest verification of the branch's work package, as
the pre-push check does: pass only for a state that verification saw.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if branch != "" {
				return cmdutil.NoArgs(cmd, args)
			}
			return cmdutil.ExactArgs(2, "a plan name and a work package id")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if branch != "" {
				return verifyBranch(cmd, f, branch, commit, asJSON)
			}
			e, cfg, err := env(f, args[0])
			if err != nil {
				return err
			}
			v, err := e.Verify(args[1], duration(cfg.Dispatch.GateTimeout))
			if err != nil {
				return err
			}
			if asJSON {
				cmdutil.ExportJSON(cmd, f.IO.Out, v)
			} else {
				fmt.Fprintf(f.IO.Out, "%s %s: %s\n", e.Project.Name, v.WP, v.Verdict)
				fmt.Fprintf(f.IO.Out, "  worktree %s at %.12s\n  changed: %s\n", v.Worktree, v.Head, strings.Join(v.Changed, ", "))
				for _, o := range v.OutOfScope {
					fmt.Fprintf(f.IO.Out, "  outside the perimeter: %s\n", o)
				}
				fmt.Fprintf(f.IO.Out, "  gate %q: exit %d in %s\n", v.Gate.Command, v.Gate.ExitCode, v.Gate.Duration)
				for _, fd := range v.Findings {
					fmt.Fprintf(f.IO.Out, "  %s\n", fd)
				}
			}
			if v.Verdict != pipeline.Pass {
				return cmdutil.Silent(fmt.Errorf("%s failed verification", v.WP))
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the verification as JSON")
	cmd.Flags().StringVar(&branch, "branch", "", "a work package's branch whose commit to hold against the ledger (CI)")
	cmd.Flags().StringVar(&commit, "commit", "HEAD", "with --branch: the commit to check")
	return cmd
}

func newCmdCheckpoint(f *cmdutil.Factory) *cobra.Command {
	var message string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "checkpoint PROJECT WPn [-m MSG] [--json]",
		Short: "Commit exactly the in-perimeter changed paths of a verified work package (never pushes)",
		Args:  cmdutil.ExactArgs(2, "a plan name and a work package id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, _, err := env(f, args[0])
			if err != nil {
				return err
			}
			cp, err := e.Checkpoint(args[1], message)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, cp)
			}
			fmt.Fprintf(f.IO.Out, "%s %s: %.12s (%d paths)\n", e.Project.Name, cp.WP, cp.Commit, len(cp.Paths))
			return nil
		},
	}
	cmd.Flags().StringVarP(&message, "message", "m", "", "commit message (default: the WP id and title)")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the checkpoint as JSON")
	return cmd
}

func printFindings(f *cmdutil.Factory, fs []pipeline.Finding) {
	for _, fd := range fs {
		where := fd.File
		if fd.Line > 0 {
			where = fmt.Sprintf("%s:%d", fd.File, fd.Line)
		}
		if fd.WP != "" {
			where = strings.TrimSpace(fd.WP + " " + where)
		}
		code := fd.Code
		if fd.Severity == "warning" {
			code = "warning " + code
		}
		fmt.Fprintf(f.IO.Out, "  %s %s: %s\n", code, where, fd.Message)
	}
}

func newCmdConsolidate(f *cmdutil.Factory) *cobra.Command {
	var asJSON, dryRun bool
	cmd := &cobra.Command{
		Use:   "consolidate PROJECT [--dry-run] [--json]",
		Short: "Single writer: merge the verified WP branches, apply shared-file wiring, run the gate",
		Long: `Merge the verified WP branches into the integration worktree in dependency
order, add the wiring lines the reports list to shared files, and run the gate.
Wiring names shared files inside the repository only and is never written
through a symlink. --dry-run lists what would be merged and wired, and the
findings that would stop it, and writes nothing at all.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, cfg, err := env(f, args[0])
			if err != nil {
				return err
			}
			var c *pipeline.Consolidation
			if dryRun {
				c, err = e.ConsolidateDryRun()
			} else {
				c, err = e.Consolidate(cfg.Worktree.Root, duration(cfg.Dispatch.GateTimeout))
			}
			if asJSON && c != nil {
				cmdutil.ExportJSON(cmd, f.IO.Out, c)
			} else if c != nil {
				if c.Branch != "" {
					fmt.Fprintf(f.IO.Out, "integration worktree %s (%s)\n", c.Worktree, c.Branch)
				}
				for _, w := range c.Wiring {
					fmt.Fprintf(f.IO.Out, "  wiring %s %s: %s (%s)\n", w.WP, w.File, w.Line, w.Status)
				}
				printFindings(f, c.Findings)
				if c.DryRun {
					fmt.Fprintf(f.IO.Out, "  would merge %s; dry run: nothing written\n", strings.Join(c.WouldMerge, ", "))
				}
				if c.Gate != nil {
					fmt.Fprintf(f.IO.Out, "  merged %s; gate %q: exit %d\n", strings.Join(c.Merged, ", "), c.Gate.Command, c.Gate.ExitCode)
				}
			}
			return err
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the result as JSON")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be merged and wired; write nothing")
	return cmd
}
