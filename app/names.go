package app

import (
	"context"
	"sort"

	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// The completers below feed shell completion: they read what is on disk,
// never start the daemon, and answer nothing rather than fail, since a
// completion that errors only garbles the user's prompt.

// PlanNames lists the plans under .plans/ of the work tree.
func (e *Env) PlanNames(ctx context.Context) []string {
	repo, err := e.Repo()
	if err != nil || repo.WorkTree == "" {
		return nil
	}
	return plans.List(repo.WorkTree)
}

// WPNames lists the work package ids of plan project, each with its title.
func (e *Env) WPNames(ctx context.Context, project string) []string {
	repo, err := e.Repo()
	if err != nil {
		return nil
	}
	p, err := plans.Load(repo.WorkTree, project)
	if err != nil {
		return nil
	}
	var out []string
	for _, wp := range p.Plan.WPs {
		out = append(out, wp.ID+"\t"+wp.Title)
	}
	return out
}

// SessionNames lists this repository's sessions, each with its state and label.
func (e *Env) SessionNames(ctx context.Context) []string {
	repo, err := e.Repo()
	if err != nil {
		return nil
	}
	recs, err := sessions.OpenView(repo.CommonDir).All()
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range recs {
		desc := r.State
		if r.Label != "" {
			desc += " " + r.Label
		}
		out = append(out, r.ID+"\t"+desc)
	}
	return out
}

// WorktreeNames lists the worktrees agentproto made for this repository.
func (e *Env) WorktreeNames(ctx context.Context) []string {
	repo, err := e.Repo()
	if err != nil {
		return nil
	}
	ms, err := worktree.All(repo)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Slug+"\t"+m.Branch)
	}
	return out
}

// ProfileNames lists the configured executor profiles.
func (e *Env) ProfileNames(ctx context.Context) []string {
	cfg, err := e.Config()
	if err != nil {
		return nil
	}
	var out []string
	for name := range cfg.Profiles {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
