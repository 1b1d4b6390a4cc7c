package pipelinecmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/pipeline"
)

func newCmdRun(f *cmdutil.Factory) *cobra.Command {
	var openPR, dryRun, asJSON bool
	var maxParallel int
	cmd := &cobra.Command{
		Use:   "run PROJECT [--max-parallel N] [--pr | --dry-run]",
		Short: "The whole pipeline: dispatch, verify, checkpoint, consolidate, review, e2e, pull request",
		Long: `Run every step in order with one progress view and stop at the first red step,
saying what to do next. Every step is recorded, so running it again continues
where it stopped. The pull request is opened only with --pr (or printed with
--dry-run); without either, run stops before it.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			out := f.IO.Out
			// With --json the progress view goes to a watching stderr and stdout
			// gets one document: how far the run went and each step's result.
			doc := map[string]any{"project": args[0], "ok": false}
			if asJSON {
				out = f.IO.Progress()
				defer func() {
					if werr := cmdutil.ExportJSON(cmd, f.IO.Out, doc); err == nil {
						err = werr
					}
				}()
			}
			step := func(name string) { fmt.Fprintf(out, "\n== %s\n", name) }
			red := func(name string, err error, next string) error {
				fmt.Fprintf(out, "\nstopped at %s: %v\nnext: %s\n", name, err, next)
				doc["stopped_at"], doc["error"], doc["next"] = name, err.Error(), next
				return err
			}
			e, cfg, err := env(f, args[0])
			if err != nil {
				return err
			}
			p := e.Project.Name
			step("dispatch and verify")
			c, err := sessionsClient(f)
			if err != nil {
				return err
			}
			if maxParallel == 0 {
				maxParallel = cfg.Dispatch.MaxParallel
			}
			if rep := checkPlan(e, cfg); !rep.OK {
				return red("dispatch", fmt.Errorf("plan %s has %d errors", p, rep.Errors), "git agentproto plan check "+p)
			}
			d := &pipeline.Dispatcher{Env: e, Sessions: c, Config: cfg, MaxParallel: maxParallel, Wait: true,
				Timeout: duration(cfg.Dispatch.Timeout), GateTimeout: duration(cfg.Dispatch.GateTimeout), Out: out, CallerEnv: os.Environ(),
				TTY: f.IO.IsStdoutTTY() && !asJSON}
			if err := d.Run(nil); err != nil {
				return red("dispatch", err, "fix it, then git agentproto run "+p+" again")
			}
			step("checkpoint")
			var checkpoints []any
			defer func() { doc["checkpoints"] = checkpoints }()
			for _, wp := range e.Project.Plan.WPs {
				cp, err := e.Checkpoint(wp.ID, "")
				if err != nil {
					return red("checkpoint "+wp.ID, err, "git agentproto verify "+p+" "+wp.ID)
				}
				fmt.Fprintf(out, "%-5s %.12s (%d paths)\n", wp.ID, cp.Commit, len(cp.Paths))
				checkpoints = append(checkpoints, cp)
			}
			step("consolidate")
			cons, err := e.Consolidate(cfg.Worktree.Root, duration(cfg.Dispatch.GateTimeout))
			if cons != nil {
				doc["consolidation"] = cons
				for _, w := range cons.Wiring {
					fmt.Fprintf(out, "wiring %s %s: %s (%s)\n", w.WP, w.File, w.Line, w.Status)
				}
				printFindings(f, cons.Findings)
			}
			if err != nil {
				return red("consolidate", err, "resolve the findings above, then git agentproto run "+p+" again")
			}
			fmt.Fprintf(out, "merged %v into %s; gate exit %d\n", cons.Merged, cons.Branch, cons.Gate.ExitCode)
			step("review")
			rev, err := e.Review(duration(cfg.Dispatch.GateTimeout), duration(cfg.Review.MutationBudget))
			if err != nil {
				return red("review", err, "git agentproto review "+p)
			}
			if err := e.RecordReview(rev, nil); err != nil {
				return err
			}
			doc["review"] = rev
			printFindings(f, rev.Findings)
			fmt.Fprintf(out, "%d findings\n", len(rev.Findings))
			if !rev.OK {
				return red("review", fmt.Errorf("%d findings", len(rev.Findings)), "have the WPs fix them (sessions prompt), verify, and run again")
			}
			if len(cfg.E2E.Commands) > 0 {
				step("e2e")
				r, err := e.E2E(cfg.E2E.Commands, duration(cfg.Dispatch.GateTimeout))
				if err != nil {
					return red("e2e", err, "git agentproto e2e "+p)
				}
				doc["e2e"] = r
				for _, c := range r.Commands {
					fmt.Fprintf(out, "%s: exit %d\n", c.Gate.Command, c.Gate.ExitCode)
				}
				if !r.OK {
					return red("e2e", fmt.Errorf("a command failed"), "fix it in the integration worktree's WP, then run again")
				}
			}
			if !openPR && !dryRun {
				fmt.Fprintf(out, "\nall green. next: git agentproto pr open %s\n", p)
				doc["ok"], doc["next"] = true, "git agentproto pr open "+p
				return nil
			}
			step("pull request")
			repo, err := prTarget(e, cfg)
			if err != nil {
				return red("pull request", err, "add a GitHub remote, or set [pr] repo = \"OWNER/NAME\", then git agentproto run "+p+" again")
			}
			o := pipeline.PROptions{Remote: cfg.PR.Remote, Repo: repo, Draft: cfg.PR.Draft, DryRun: dryRun, AgentsFile: cfg.Plans.AgentInstructions}
			if !dryRun {
				if o.Token, err = forge.Token(repo.Host); err != nil {
					return red("pull request", err, "set GH_TOKEN")
				}
				o.Transport = testTransport()
			}
			r, text, err := e.OpenPR(o)
			if err != nil {
				return red("pull request", err, "git agentproto pr open "+p)
			}
			if dryRun {
				fmt.Fprint(out, text)
				doc["pr_request"] = text
			} else {
				fmt.Fprintf(out, "pull request #%d: %s\n", r.Number, r.URL)
				doc["pr"] = r
			}
			doc["ok"] = true
			return nil
		},
	}
	cmd.Flags().IntVar(&maxParallel, "max-parallel", 0, "sessions at once")
	cmd.Flags().BoolVar(&openPR, "pr", false, "open the pull request at the end")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the pull request instead of opening it")
	cmdutil.AddJSONFlags(cmd, &asJSON, "progress on stderr; print the outcome and each step's result as JSON")
	return cmd
}
