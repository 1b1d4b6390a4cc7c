package pipeline

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/sessions"
)

// RunOptions say how Run drives the whole pipeline.
type RunOptions struct {
	Sessions *sessions.Client
	Config   config.Config
	// MaxParallel bounds a wave (0: [dispatch] max_parallel).
	MaxParallel int
	// CallerEnv is the environment sessions are started from.
	CallerEnv []string
	// OpenPR opens the pull request at the end; DryRun builds it and
	// sends nothing. Without either Run stops before it.
	OpenPR, DryRun bool
	// Token and Transport reach the forge (see PRRequest).
	Token     func(host string) (string, error)
	Transport http.RoundTripper
	// Report is told each step and its result; nil reports nothing.
	Report Reporter
}

// RunResult says how far Run went and holds each step's result: what
// run --json prints.
type RunResult struct {
	Project       string         `json:"project"`
	OK            bool           `json:"ok"`
	StoppedAt     string         `json:"stopped_at,omitempty"`
	Error         string         `json:"error,omitempty"`
	Next          string         `json:"next,omitempty"`
	Checkpoints   []*Checkpoint  `json:"checkpoints,omitempty"`
	Consolidation *Consolidation `json:"consolidation,omitempty"`
	Review        *ReviewResult  `json:"review,omitempty"`
	E2E           *E2EResult     `json:"e2e,omitempty"`
	// E2ESkipped says why no e2e step ran ("" when one did).
	E2ESkipped string    `json:"e2e_skipped,omitempty"`
	PRRequest  *PRPlan   `json:"pr_request,omitempty"`
	PR         *PRResult `json:"pr,omitempty"`
}

// E2ESkipped is what run says when agentproto.toml has no e2e commands.
const E2ESkipped = "skipped: agentproto.toml has no [e2e] commands (add commands = [\"...\"] under [e2e] to run live checks against the integration worktree)"

// Run runs every step in order — dispatch and verify, checkpoint,
// consolidate, review, e2e, pull request — and stops at the first red
// one: the result names it, the error it met and what to do next. Every
// step is recorded, so running it again continues where it stopped.
func (e *Env) Run(o RunOptions) (*RunResult, error) {
	if o.Report == nil {
		o.Report = Discard
	}
	r := &runner{env: e, o: o, res: &RunResult{Project: e.Project.Name}}
	for _, s := range []struct {
		name string
		run  func() (string, string, error)
	}{{"dispatch and verify", r.dispatch}, {"checkpoint", r.checkpoint}, {"consolidate", r.consolidate},
		{"review", r.review}, {"e2e", r.e2e}, {"pull request", r.pullRequest}} {
		if s.name == "e2e" && len(o.Config.E2E.Commands) == 0 {
			// Said, never silent: a run that checked nothing live is not
			// one that passed its live checks.
			o.Report.Step(s.name)
			o.Report.Event("", "e2e", E2ESkipped)
			r.res.E2ESkipped = E2ESkipped
			continue
		}
		if s.name == "pull request" && !o.OpenPR && !o.DryRun {
			r.res.OK, r.res.Next = true, "git agentproto pr open "+e.Project.Name
			return r.res, nil
		}
		o.Report.Step(s.name)
		if where, next, err := s.run(); err != nil {
			msg := err.Error()
			// A step that says its own next step knows better than run's
			// generic one: one next, not two that disagree.
			if before, own, ok := strings.Cut(msg, "; next: "); ok {
				msg, next = before, own
			}
			r.res.StoppedAt, r.res.Error, r.res.Next = where, msg, next
			return r.res, err
		}
	}
	r.res.OK = true
	return r.res, nil
}

// runner holds one Run; each step returns where it stopped and what to do
// next when it fails.
type runner struct {
	env *Env
	o   RunOptions
	res *RunResult
}

func (r *runner) dispatch() (string, string, error) {
	e, cfg, p := r.env, r.o.Config, r.env.Project.Name
	if rep := e.CheckPlan(cfg.Plans); !rep.OK {
		return "dispatch", "git agentproto plan check " + p, fmt.Errorf("plan %s has %d errors", p, rep.Errors)
	}
	max := r.o.MaxParallel
	if max == 0 {
		max = cfg.Dispatch.MaxParallel
	}
	d := &Dispatcher{Env: e, Sessions: r.o.Sessions, Config: cfg, MaxParallel: max, Wait: true, Timeout: cfg.Dispatch.Timeout.Duration,
		GateTimeout: cfg.Dispatch.GateTimeout.Duration, Report: r.o.Report, CallerEnv: r.o.CallerEnv}
	if err := d.Run(nil); err != nil {
		return "dispatch", "fix it, then git agentproto run " + p + " again", err
	}
	return "", "", nil
}

func (r *runner) checkpoint() (string, string, error) {
	for _, wp := range r.env.Project.Plan.WPs {
		cp, err := r.env.Checkpoint(wp.ID, "")
		if err != nil {
			return "checkpoint " + wp.ID, "git agentproto verify " + r.env.Project.Name + " " + wp.ID, err
		}
		r.o.Report.Result(cp)
		r.res.Checkpoints = append(r.res.Checkpoints, cp)
	}
	return "", "", nil
}

func (r *runner) consolidate() (string, string, error) {
	cfg := r.o.Config
	c, err := r.env.Consolidate(cfg.Worktree.Root, cfg.Dispatch.GateTimeout.Duration)
	if c != nil {
		r.res.Consolidation = c
		r.o.Report.Result(c)
	}
	if err != nil {
		return "consolidate", "resolve the findings above, then git agentproto run " + r.env.Project.Name + " again", err
	}
	return "", "", nil
}

func (r *runner) review() (string, string, error) {
	cfg := r.o.Config
	rev, err := r.env.Review(cfg.Dispatch.GateTimeout.Duration, cfg.Review.MutationBudget.Duration)
	if err != nil {
		return "review", "git agentproto review " + r.env.Project.Name, err
	}
	if err := r.env.RecordReview(rev, nil); err != nil {
		return "review", "git agentproto review " + r.env.Project.Name, err
	}
	r.res.Review = rev
	r.o.Report.Result(rev)
	if !rev.OK {
		return "review", r.env.ReviewNext(rev), fmt.Errorf("%d findings", len(rev.Findings))
	}
	return "", "", nil
}

func (r *runner) e2e() (string, string, error) {
	cfg := r.o.Config
	res, err := r.env.E2E(cfg.E2E.Commands, cfg.Dispatch.GateTimeout.Duration)
	if err != nil {
		return "e2e", "git agentproto e2e " + r.env.Project.Name, err
	}
	r.res.E2E = res
	r.o.Report.Result(res)
	if !res.OK {
		return "e2e", "fix it in the integration worktree's WP, then run again", fmt.Errorf("a command failed")
	}
	return "", "", nil
}

func (r *runner) pullRequest() (string, string, error) {
	out, next, err := r.env.pullRequest(r.o.Config, PRRequest{DryRun: r.o.DryRun, Token: r.o.Token, Transport: r.o.Transport})
	if err != nil {
		return "pull request", next, err
	}
	r.o.Report.Result(out)
	if r.o.DryRun {
		r.res.PRRequest = out.Request
	} else {
		r.res.PR = out.Result
	}
	return "", "", nil
}
