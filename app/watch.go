package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/watch"
)

// Watching is what the live view of a run reads and does: its sources,
// the files whose change redraws it, and the actions its keys take.
type Watching struct {
	Sources watch.Sources
	Watched watch.Watched
	Actions watch.Actions
}

// Watch gathers the live view of plan project (none: "") and of goal's
// peers and claims. It reads with the read-only ledger; without a daemon
// client the view shows the records on disk.
func (e *Env) Watch(ctx context.Context, project, goal string) (*Watching, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	st := sessions.OpenView(repo.CommonDir)
	src := watch.Sources{Ledger: l, Goal: goal, Store: &st, Mu: &sync.Mutex{}}
	if project != "" {
		if src.Project, err = plans.Load(repo.WorkTree, project); err != nil {
			return nil, err
		}
	}
	if c, err := e.Sessions(); err == nil {
		src.Client = c
	}
	if cfg, err := e.Config(); err == nil {
		src.Reactions = &cfg.Reactions
	}
	w := watch.Watched{CommonDir: repo.CommonDir, Sessions: st.Dir}
	return &Watching{Sources: src, Watched: w, Actions: &watchActions{e: e, src: src}}, nil
}

// watchActions are the view's keys: they go to the daemon, or verify a
// work package under the sources' lock.
type watchActions struct {
	e   *Env
	src watch.Sources
}

func (a *watchActions) Prompt(id, text string) error {
	c, err := a.e.Sessions()
	if err != nil {
		return err
	}
	return c.Prompt(context.Background(), id, text, false)
}

func (a *watchActions) Interrupt(id string) error {
	c, err := a.e.Sessions()
	if err != nil {
		return err
	}
	return c.Prompt(context.Background(), id, "", true)
}

func (a *watchActions) Kill(id string) error {
	c, err := a.e.Sessions()
	if err != nil {
		return err
	}
	_, err = c.Kill(context.Background(), id)
	return err
}

func (a *watchActions) Verify(wp string) (string, error) {
	if a.src.Project == nil {
		return "", fault.Invalidf("watch was started without a plan: no work package to verify")
	}
	repo, cfg, err := a.e.repoConfig()
	if err != nil {
		return "", err
	}
	a.src.Mu.Lock()
	defer a.src.Mu.Unlock()
	h, err := plans.ReadHistory(a.src.Ledger, a.src.Project.Name)
	if err != nil {
		return "", err
	}
	pe := &pipeline.Env{Repo: repo, Ledger: a.src.Ledger, Project: a.src.Project, History: h}
	v, err := pe.Verify(wp, cfg.Dispatch.GateTimeout.Duration)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s: %s (%d changed, %d outside, gate exit %d)", a.src.Project.Name, wp, v.Verdict, len(v.Changed), len(v.OutOfScope), v.Gate.ExitCode), nil
}
