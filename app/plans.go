package app

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/lessons"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
)

// PlanErrors refuses a use case that needs a plan with no errors; the
// front end words what to run next.
type PlanErrors struct {
	Project string
	Report  *plans.Report
}

func (p *PlanErrors) Error() string {
	return fmt.Sprintf("plan %s has %d errors", p.Project, p.Report.Errors)
}

// LoadPlan reads the plan name from .plans/ of the work tree.
func (e *Env) LoadPlan(ctx context.Context, name string) (*plans.Project, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	return plans.Load(repo.WorkTree, name)
}

// PlanHistory is the plan name and what the ledger holds of it (freezes
// and amendments), read with the read-only ledger.
func (e *Env) PlanHistory(ctx context.Context, name string) (*plans.Project, *gitstore.Ledger, *plans.History, error) {
	p, err := e.LoadPlan(ctx, name)
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := e.ReadLedger()
	if err != nil {
		return nil, nil, nil, err
	}
	h, err := plans.ReadHistory(l, p.Name)
	return p, l, h, err
}

// CheckPlan checks a plan with the configured contract block, against the
// base tree when the base resolves.
func (e *Env) CheckPlan(ctx context.Context, name string) (*plans.Project, *plans.Report, error) {
	p, err := e.LoadPlan(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return p, nil, err
	}
	rep, err := plans.CheckAt(repo, p, cfg.Plans, resolve(repo, p.Plan.Base))
	return p, rep, err
}

// Freeze is what FreezePlan did.
type Freeze struct {
	Project *plans.Project
	Report  *plans.Report
	// Frozen is the plan_frozen record, nil when nothing was frozen.
	Frozen *plans.Frozen
	// Written is false when the same plan was frozen already.
	Written bool
}

// FreezePlan records the checked plan in the ledger (plan_frozen, every
// file attached). A plan with errors is refused with a *PlanErrors and
// its report, and nothing is recorded.
func (e *Env) FreezePlan(ctx context.Context, name string) (*Freeze, error) {
	p, rep, err := e.CheckPlan(ctx, name)
	if err != nil {
		return nil, err
	}
	out := &Freeze{Project: p, Report: rep}
	if !rep.OK {
		return out, &PlanErrors{Project: p.Name, Report: rep}
	}
	l, err := e.Ledger()
	if err != nil {
		return out, err
	}
	repo, err := e.Repo()
	if err != nil {
		return out, err
	}
	out.Frozen, out.Written, err = plans.Freeze(p, l, resolve(repo, p.Plan.Base), rep)
	return out, err
}

// Prompt is an executor's session prompt for one work package. The
// fields are in the order of their JSON names, as the map it replaced
// printed them.
type Prompt struct {
	Project string `json:"project"`
	Prompt  string `json:"prompt"`
	WP      string `json:"wp"`
}

// RenderPrompt is the session prompt of work package wp: a pointer to its
// frozen brief, the overrides, and the recent lessons sharing a tag with
// the plan.
func (e *Env) RenderPrompt(ctx context.Context, project, wp string) (*Prompt, error) {
	p, l, h, err := e.PlanHistory(ctx, project)
	if err != nil {
		return nil, err
	}
	ls, err := lessons.List(l, p.Plan.Tags, len(p.Plan.Tags) == 0, lessons.Recent)
	if err != nil {
		return nil, err
	}
	text, err := plans.Render(p, h, wp, lessons.Texts(ls))
	if err != nil {
		return nil, err
	}
	return &Prompt{Project: p.Name, WP: wp, Prompt: text}, nil
}

// PlanStatus is the drift of the plan's working files against the frozen
// version, the work packages waiting for a decision, and its pull
// request's reactions (reactions.go).
func (e *Env) PlanStatus(ctx context.Context, project string) (*plans.Project, *PlanStatus, error) {
	p, l, h, err := e.PlanHistory(ctx, project)
	if err != nil {
		return nil, nil, err
	}
	st, err := pipeline.Status(l, p, h)
	if err != nil {
		return p, nil, err
	}
	pr, err := e.prStatus(l, p)
	return p, &PlanStatus{PlanStatus: st, PR: pr}, err
}

// AmendPlan appends a dated correction to file (the SPEC, or the recon)
// and records it; false when it is recorded already.
func (e *Env) AmendPlan(ctx context.Context, project, file, correction string) (*plans.Project, bool, error) {
	p, err := e.LoadPlan(ctx, project)
	if err != nil {
		return nil, false, err
	}
	l, err := e.Ledger()
	if err != nil {
		return p, false, err
	}
	recorded, err := plans.AmendFile(p, l, file, correction, time.Now())
	return p, recorded, err
}

// AnswerDecision records the supervisor's choice for a waiting work
// package and sends it to the WP's live session. An answer recorded but
// not sent comes back with the error.
func (e *Env) AnswerDecision(ctx context.Context, project, wp, choice string) (*plans.Project, *pipeline.Answer, error) {
	p, err := e.LoadPlan(ctx, project)
	if err != nil {
		return nil, nil, err
	}
	l, err := e.Ledger()
	if err != nil {
		return p, nil, err
	}
	c, err := e.Sessions()
	if err != nil {
		return p, nil, err
	}
	a, err := pipeline.AnswerDecision(l, p, c, wp, choice, time.Now())
	return p, a, err
}

// FrozenBrief reads a work package's brief as frozen: the attachment of
// the plan_frozen event, not the working file an agent may have edited.
func (e *Env) FrozenBrief(ctx context.Context, project, wpID string) (name, text string, err error) {
	if err := plans.ValidateProject(project); err != nil {
		return "", "", err
	}
	if err := plans.ValidateWPID(wpID); err != nil {
		return "", "", err
	}
	h, err := e.frozenHistory(project)
	if err != nil {
		return "", "", err
	}
	if h.Frozen == nil {
		return "", "", fault.Invalidf("plan %s is not frozen", project)
	}
	for _, wp := range h.Frozen.WPs {
		if wp.ID != wpID {
			continue
		}
		name = wp.Brief
		if name == "" {
			name = wp.ID + "-brief.md"
		}
		name = filepath.Base(name)
		b, err := e.frozenFile(h.Frozen.RecordID, name)
		return name, string(b), err
	}
	return "", "", fault.Invalidf("plan %s has no work package %s", project, wpID)
}

// FrozenFile reads one file of a frozen plan; found is false when the
// plan is not frozen or froze no such file.
func (e *Env) FrozenFile(ctx context.Context, project, file string) (b []byte, found bool, err error) {
	if err := plans.ValidateProject(project); err != nil {
		return nil, false, err
	}
	h, err := e.frozenHistory(project)
	if err != nil {
		return nil, false, err
	}
	if h.Frozen == nil {
		return nil, false, nil
	}
	if _, ok := h.Frozen.Files[file]; !ok {
		return nil, false, nil
	}
	b, err = e.frozenFile(h.Frozen.RecordID, file)
	return b, err == nil, err
}

// resolve is the commit a plan's base names, or "" when it names none; a
// base that reads as an option names none.
func resolve(repo *gitrepo.Repo, rev string) string {
	commit, _ := repo.Commit(rev)
	return commit
}

func (e *Env) frozenHistory(project string) (*plans.History, error) {
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	return plans.ReadHistory(l, project)
}

// frozenFile reads one file attached to a plan_frozen event.
func (e *Env) frozenFile(record, name string) ([]byte, error) {
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	ev, _, err := l.Get(record)
	if err != nil {
		return nil, err
	}
	for _, a := range ev.Attachments {
		if a.Name == name {
			repo, err := e.Repo()
			if err != nil {
				return nil, err
			}
			return repo.BlobByID(a.OID)
		}
	}
	return nil, fault.Invalidf("the frozen plan %s has no %s", record, name)
}

// AddLesson records a lesson: the next supervisor, and every executor
// prompt of a plan sharing a tag, learn it. False when it is recorded
// already.
func (e *Env) AddLesson(ctx context.Context, text string, tags []string) (bool, error) {
	l, err := e.Ledger()
	if err != nil {
		return false, err
	}
	return lessons.Add(l, text, tags)
}
