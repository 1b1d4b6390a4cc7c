package app

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
)

// Pipeline loads what the pipeline steps share: the plan, its history,
// the ledger and the configuration.
func (e *Env) Pipeline(ctx context.Context, project string) (*pipeline.Env, config.Config, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, cfg, err
	}
	p, err := plans.Load(repo.WorkTree, project)
	if err != nil {
		return nil, cfg, err
	}
	l, err := e.Ledger()
	if err != nil {
		return nil, cfg, err
	}
	h, err := plans.ReadHistory(l, p.Name)
	if err != nil {
		return nil, cfg, err
	}
	return &pipeline.Env{Repo: repo, Ledger: l, Project: p, History: h}, cfg, nil
}

// DispatchOptions are the inputs of Dispatch.
type DispatchOptions struct {
	Project string
	// WPs are the work packages to run (none: all).
	WPs []string
	// MaxParallel bounds a wave (0: [dispatch] max_parallel).
	MaxParallel int
	// Wait waits for each wave's turns and verifies them; without it the
	// next wave is launched and the sessions daemon runs the rest.
	Wait bool
	// Timeout bounds a wave (0: [dispatch] timeout).
	Timeout time.Duration
	NoPing  bool
	// Text, with WPs, gives each a turn with it instead of a wave — the
	// way back after a review: their live session, else a new one in
	// their worktree — then waits and verifies them again.
	Text   string
	Report pipeline.Reporter
}

// Dispatched is a dispatch that ran, whether or not it stopped early.
type Dispatched struct {
	env  *pipeline.Env
	wps  []string
	wait bool
}

// Project is the plan's name.
func (d *Dispatched) Project() string { return d.env.Project.Name }

// State is what the ledger says of the plan after the dispatch.
func (d *Dispatched) State() (*pipeline.State, error) {
	return pipeline.ReadState(d.env.Ledger, d.env.Project.Name)
}

// Summary says what the dispatch did per work package and what to run
// next.
func (d *Dispatched) Summary() (done, next string, err error) {
	return d.env.DispatchSummary(d.wps, d.wait)
}

// Dispatch runs work packages of a frozen plan, WP0 first and alone, each
// in its own worktree. A plan with errors is refused with a *PlanErrors.
// When the run itself fails, the Dispatched comes back with its error,
// so the state it left can still be read.
func (e *Env) Dispatch(ctx context.Context, o DispatchOptions) (*Dispatched, error) {
	// A WP's worktree is checked out with git's configuration: listed
	// while the plan, its checks and the ledger are read (Dispatcher.Run
	// asks again, which then costs nothing).
	if repo, err := e.Repo(); err == nil {
		defer repo.PrefetchConfigList()()
	}
	pe, cfg, err := e.Pipeline(ctx, o.Project)
	if err != nil {
		return nil, err
	}
	if rep := pe.CheckPlan(cfg.Plans); !rep.OK {
		return nil, &PlanErrors{Project: pe.Project.Name, Report: rep}
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	if o.Timeout == 0 {
		o.Timeout = cfg.Dispatch.Timeout.Duration
	}
	if o.MaxParallel == 0 {
		o.MaxParallel = cfg.Dispatch.MaxParallel
	}
	d := &pipeline.Dispatcher{Env: pe, Sessions: c, Config: cfg, MaxParallel: o.MaxParallel, Wait: o.Wait,
		Timeout: o.Timeout, GateTimeout: cfg.Dispatch.GateTimeout.Duration, CallerEnv: os.Environ(), NoPing: o.NoPing,
		Report: o.Report}
	if o.Text != "" {
		return &Dispatched{env: pe, wps: o.WPs, wait: true}, e.turns(ctx, d, o)
	}
	return &Dispatched{env: pe, wps: o.WPs, wait: o.Wait}, d.Run(o.WPs)
}

// turns gives each WP of o.WPs a turn with o.Text and verifies it again.
func (e *Env) turns(ctx context.Context, d *pipeline.Dispatcher, o DispatchOptions) error {
	if len(o.WPs) == 0 || !o.Wait {
		return fault.Invalidf("--text gives named work packages a turn and waits for it: name them with --wp, without --no-wait")
	}
	if d.Report == nil {
		d.Report = pipeline.Discard
	}
	a := &wpAgent{app: e, env: d.Env, cfg: d.Config, sessions: d.Sessions, by: "dispatch --text"}
	var ids []string
	for _, wp := range o.WPs {
		if _, err := d.Env.Project.WP(wp); err != nil {
			return err
		}
	}
	for _, wp := range o.WPs {
		id, err := a.give(ctx, wp, o.Text)
		if err != nil {
			return fmt.Errorf("%s: %w", wp, err)
		}
		d.Report.Event(wp, "session", id+" has the text")
		ids = append(ids, id)
	}
	return d.Turns(o.WPs, ids)
}

// AtWork lists, as "WPn (session ID, STATE)", the sessions of plan
// project that are live in the sessions daemon: what carries on when a
// dispatch or run stops waiting.
func (e *Env) AtWork(ctx context.Context, project string) ([]string, error) {
	recs, err := e.ListSessions(ctx, false)
	if err != nil {
		return nil, err
	}
	var live []string
	for _, r := range recs {
		wp, ok := strings.CutPrefix(r.Label, project+"/")
		if ok && !sessions.Terminal(r.State) && r.State != "orphaned" {
			live = append(live, fmt.Sprintf("%s (session %s, %s)", wp, r.ID, r.State))
		}
	}
	return live, nil
}

// DispatchState is where a plan's dispatch stands, from the ledger.
func (e *Env) DispatchState(ctx context.Context, project string) (string, *pipeline.State, error) {
	pe, _, err := e.Pipeline(ctx, project)
	if err != nil {
		return "", nil, err
	}
	st, err := pipeline.ReadState(pe.Ledger, pe.Project.Name)
	return pe.Project.Name, st, err
}

// ReviewOptions are the inputs of Review.
type ReviewOptions struct {
	Project string
	// Adapter or Profile also runs a reviewer session.
	Adapter, Profile string
	// MutationBudget bounds the mutation smoke (negative: [review]
	// mutation_budget; 0 turns it off).
	MutationBudget time.Duration
}

// Review is the adversarial review of a plan's work: every gate re-run,
// commits against perimeters, fake-work patterns; with an adapter or
// profile, a reviewer session reads the review brief too. The review is
// recorded, with the reviewer's report attached.
func (e *Env) Review(ctx context.Context, o ReviewOptions) (*pipeline.ReviewResult, error) {
	pe, cfg, err := e.Pipeline(ctx, o.Project)
	if err != nil {
		return nil, err
	}
	withReviewer := o.Adapter != "" || o.Profile != ""
	if withReviewer {
		if err := pipeline.CheckReviewer(cfg, o.Adapter, o.Profile); err != nil {
			return nil, err
		}
	}
	if err := reviewReady(pe); err != nil {
		return nil, err
	}
	r, err := pe.Review(cfg.Dispatch.GateTimeout.Duration, mutationBudget(o.MutationBudget, cfg))
	if err != nil {
		return nil, err
	}
	var report []byte
	if withReviewer {
		c, err := e.Sessions()
		if err != nil {
			return nil, err
		}
		if report, err = pe.RunReviewer(pipeline.ReviewerOptions{Sessions: c, Config: cfg, Adapter: o.Adapter, Profile: o.Profile, Env: os.Environ(), Out: e.log()}, r); err != nil {
			return nil, err
		}
	}
	return r, pe.RecordReview(r, report)
}

// ReviewNext is the one step to take after review r of project found
// problems ("" when it passed): the turn to give the work packages its
// findings are about.
func (e *Env) ReviewNext(ctx context.Context, project string, r *pipeline.ReviewResult) (string, error) {
	pe, _, err := e.Pipeline(ctx, project)
	if err != nil {
		return "", err
	}
	return pe.ReviewNext(r), nil
}

func mutationBudget(d time.Duration, cfg config.Config) time.Duration {
	if d >= 0 {
		return d
	}
	return cfg.Review.MutationBudget.Duration
}

// ChangeReviewOptions are the inputs of ReviewChange.
type ChangeReviewOptions struct {
	Base, Head, Gate string
	// Own are the globs the change may touch (none: any path).
	Own            []string
	MutationBudget time.Duration
}

// ReviewChange judges one change with no plan, as a CI job reviewing a
// pull request does; nothing is recorded.
func (e *Env) ReviewChange(ctx context.Context, o ChangeReviewOptions) (*judge.ChangeReview, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	if o.Head == "" {
		o.Head = "HEAD"
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Dispatch.GateTimeout.Duration)
	defer cancel()
	opt := pipeline.ChangeOptions{Gate: o.Gate, Own: o.Own, MutationBudget: mutationBudget(o.MutationBudget, cfg)}
	return pipeline.ReviewChange(ctx, repo, o.Base, o.Head, opt)
}

// PROptions are the inputs of OpenPR.
type PROptions struct {
	Project     string
	Base, Title string
	Draft       bool
	DryRun      bool
	// Force opens it though the last review found problems.
	Force bool
	// Transport reaches the forge (nil: the environment's, see
	// forge.EnvTransport).
	Transport http.RoundTripper
}

// OpenPR pushes the integration branch and opens or updates the plan's
// pull request (dry run: builds the request and sends nothing).
func (e *Env) OpenPR(ctx context.Context, o PROptions) (*pipeline.PROutcome, error) {
	pe, cfg, err := e.Pipeline(ctx, o.Project)
	if err != nil {
		return nil, err
	}
	if o.Transport == nil {
		o.Transport = forge.EnvTransport()
	}
	return pe.PullRequest(cfg, pipeline.PRRequest{Base: o.Base, Title: o.Title, Draft: o.Draft, DryRun: o.DryRun, Force: o.Force, Transport: o.Transport})
}
