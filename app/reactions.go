package app

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/reactions"
	"github.com/agentproto/agentproto/sessions"
)

// PRReport is one poll of a pull request: what was observed, the
// reactions done, what is pending.
type PRReport = reactions.Report

// WatchPROptions are the inputs of WatchPR.
type WatchPROptions struct {
	Project string
	// Once polls one time; else it polls every Interval until the pull
	// request is closed or merged, or ctx ends.
	Once bool
	// Interval between polls (0: [reactions] interval).
	Interval time.Duration
	// Polls bounds the polls of the loop (0: no bound).
	Polls int
	// Transport reaches the forge (nil: the environment's).
	Transport http.RoundTripper
	// Report is given each poll's report as it ends.
	Report func(*PRReport)
}

// WatchCost is what the polls cost against GitHub's rate limit.
type WatchCost struct {
	Counted     int `json:"counted"`      // answers that count against the limit
	NotModified int `json:"not_modified"` // 304s, which do not
}

// WatchPR watches the plan's pull request and reacts to what happens on
// it ([reactions]): a failed check, a review comment go back to the
// owning work package's agent, and the fix goes through verify,
// checkpoint, consolidate and review before it is pushed; what cannot
// be routed escalates. Nothing is ever merged. It returns the last
// poll's report.
func (e *Env) WatchPR(ctx context.Context, o WatchPROptions) (*reactions.Report, *WatchCost, error) {
	pe, cfg, err := e.Pipeline(ctx, o.Project)
	if err != nil {
		return nil, nil, err
	}
	st, err := pipeline.ReadState(pe.Ledger, pe.Project.Name)
	if err != nil {
		return nil, nil, err
	}
	if st.PR == nil && o.Once {
		// A cron job set up before the pull request is opened has
		// nothing to do yet; that is no failure.
		rep := &PRReport{Project: pe.Project.Name, Observed: []string{}, Reactions: []reactions.Reaction{}, Pending: []reactions.Pending{},
			Note: "no pull request yet: git agentproto pr open " + pe.Project.Name}
		if o.Report != nil {
			o.Report(rep)
		}
		return rep, &WatchCost{}, nil
	}
	if st.PR == nil {
		return nil, nil, fault.Refusedf("plan %s has no pull request to watch: git agentproto pr open %s", pe.Project.Name, pe.Project.Name)
	}
	repo, err := splitRepo(st.PR.Repo)
	if err != nil {
		return nil, nil, err
	}
	tok, err := forge.Token(repo.Host)
	if err != nil {
		return nil, nil, err
	}
	if o.Transport == nil {
		o.Transport = forge.EnvTransport()
	}
	// The ETags live beside the clone's other local state: a watch run
	// again from cron asks as cheaply as the loop.
	cache := forge.NewConditional(filepath.Join(pe.Repo.CommonDir, "agentproto", "reactions", pe.Project.Name+"-etags.json"))
	client, err := forge.NewClient(repo, forge.Options{Token: tok, Transport: o.Transport, Cache: cache})
	if err != nil {
		return nil, nil, err
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, nil, err
	}
	w := &reactions.Watcher{Env: pe, Config: cfg, Forge: client, Repo: repo.String(), Log: e.log(),
		Agent: &wpAgent{app: e, env: pe, cfg: cfg, sessions: c}}
	if cfg.Policies.Notify != "" {
		w.Notify = prNotifier(pe.Repo.WorkTree, cfg.Policies.Notify)
	}
	interval := o.Interval
	if interval == 0 {
		interval = cfg.Reactions.Interval.Duration
	}
	cost := func() *WatchCost {
		n, free := cache.Counts()
		return &WatchCost{Counted: n, NotModified: free}
	}
	for n := 1; ; n++ {
		rep, err := e.pollOnce(ctx, w, cache)
		if err != nil {
			return rep, cost(), err
		}
		if o.Report != nil {
			o.Report(rep)
		}
		if o.Once || rep.Done || (o.Polls > 0 && n >= o.Polls) {
			return rep, cost(), nil
		}
		select {
		case <-ctx.Done():
			return rep, cost(), nil
		case <-time.After(interval):
		}
	}
}

// pollOnce polls under the plan's poll lock and keeps the ETags; when
// another watcher holds the lock, the poll is skipped and says so.
func (e *Env) pollOnce(ctx context.Context, w *reactions.Watcher, cache *forge.Conditional) (*PRReport, error) {
	release, err := lockPoll(w.Env.Repo.CommonDir, w.Env.Project.Name)
	if err != nil {
		return nil, err
	}
	if release == nil {
		st, err := reactions.ReadState(w.Env.Ledger, w.Env.Project.Name)
		if err != nil {
			return nil, err
		}
		return &PRReport{Project: w.Env.Project.Name, PR: st.PR, Observed: []string{}, Reactions: []reactions.Reaction{}, Pending: []reactions.Pending{},
			Note: "another pr watch of this plan is polling (the daemon's, or one in another terminal): this poll is skipped"}, nil
	}
	defer release()
	rep, err := w.Poll(ctx)
	if serr := cache.Save(); err == nil && serr != nil {
		err = serr
	}
	return rep, err
}

// splitRepo reads HOST/OWNER/NAME as pr_opened records it.
func splitRepo(s string) (forge.Repo, error) {
	parts := strings.SplitN(s, "/", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return forge.Repo{}, fault.Invalidf("the pull request's repository %q is not HOST/OWNER/NAME", s)
	}
	return forge.Repo{Host: parts[0], Owner: parts[1], Name: parts[2]}, nil
}

// PRStatus is where the plan's pull request stands by the ledger: its
// state, the reactions pending and the turns left; nil before the first
// poll.
func (e *Env) PRStatus(ctx context.Context, project string) (*reactions.Report, error) {
	pe, cfg, err := e.Pipeline(ctx, project)
	if err != nil {
		return nil, err
	}
	return reactions.Status(pe.Ledger, pe.Project, cfg.Reactions)
}

// PlanStatus is pipeline's plan status with the plan's pull request as
// pr watch last saw it: its state, the reactions pending and the turns
// left, the escalations waiting for the supervisor.
type PlanStatus struct {
	*pipeline.PlanStatus
	PR *PRReport `json:"pull_request,omitempty"`
}

// prStatus reads the pull request's reactions from the ledger; a broken
// agentproto.toml shows them under the default retries rather than hide
// them.
func (e *Env) prStatus(l gitstore.Store, p *plans.Project) (*PRReport, error) {
	cfg, err := e.Config()
	if err != nil {
		cfg = config.Default()
	}
	return reactions.Status(l, p, cfg.Reactions)
}

// wpAgent gives a work package's agent its turn: the session it was last
// dispatched to when that one is alive, else a new session in its
// worktree, recorded as its newest dispatch.
type wpAgent struct {
	app      *Env
	env      *pipeline.Env
	cfg      config.Config
	sessions *sessions.Client
	by       string // the command a new session is started by ("pr watch" when empty)
}

func (a *wpAgent) Turn(ctx context.Context, wp, prompt string) (string, error) {
	id, err := a.give(ctx, wp, prompt)
	if err != nil {
		return id, err
	}
	view := sessions.OpenView(a.env.Repo.CommonDir)
	pending, err := a.sessions.Wait(ctx, []string{id}, sessions.UntilTurnEnd, a.cfg.Reactions.TurnTimeout.Duration)
	if err != nil {
		return id, err
	}
	if len(pending) > 0 {
		return id, fault.Timeoutf("%s's session %s did not end its turn within [reactions] turn_timeout (%s)", wp, id, a.cfg.Reactions.TurnTimeout)
	}
	if rec, err := view.Load(id); err == nil && rec.State == sessions.StateFailed {
		return id, fault.Refusedf("%s's session %s failed: %s", wp, id, rec.Failure)
	}
	return id, nil
}

// give sends prompt to the session wp was last dispatched to when that
// one is alive, else starts a new session in its worktree with it; it
// returns the session without waiting for its turn.
func (a *wpAgent) give(ctx context.Context, wp, prompt string) (string, error) {
	st, err := pipeline.ReadState(a.env.Ledger, a.env.Project.Name)
	if err != nil {
		return "", err
	}
	last, ok := st.LastDispatch(wp)
	if !ok {
		return "", fault.Refusedf("%s was never dispatched", wp)
	}
	view := sessions.OpenView(a.env.Repo.CommonDir)
	id := last.Session
	if rec, err := view.Load(id); err == nil && !sessions.Terminal(rec.State) {
		if err := a.sessions.Prompt(ctx, id, prompt, false); err != nil {
			return id, err
		}
	} else {
		d, err := a.env.Resume(wp, func(slug string) (pipeline.Started, error) {
			so := StartOptions{Profile: last.Profile, Worktree: slug, Prompt: prompt, Label: a.env.Project.Name + "/" + wp, By: a.by}
			if so.By == "" {
				so.By = "pr watch"
			}
			if so.Profile == "" {
				so.Adapter, so.Model = last.Adapter, last.Model
			}
			rec, err := a.app.StartSession(ctx, so)
			if rec == nil {
				return pipeline.Started{}, err
			}
			return pipeline.Started{Session: rec.ID, Adapter: rec.Adapter, Model: rec.Model, Profile: rec.Profile}, err
		})
		if err != nil {
			return "", err
		}
		id = d.Session
	}
	return id, nil
}
