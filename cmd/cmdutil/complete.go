package cmdutil

import (
	"sort"

	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// The completers below feed shell completion: they read what is on disk,
// never start the daemon, and answer nothing rather than fail, since a
// completion that errors only garbles the user's prompt.

// Projects lists the plans under .plans/ of the work tree.
func (f *Factory) Projects() []string {
	repo, err := f.Repo()
	if err != nil || repo.WorkTree == "" {
		return nil
	}
	return plans.List(repo.WorkTree)
}

// WPs lists the work package ids of plan project, each with its title.
func (f *Factory) WPs(project string) []string {
	repo, err := f.Repo()
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

// SessionIDs lists this repository's sessions, each with its state and label.
func (f *Factory) SessionIDs() []string {
	repo, err := f.Repo()
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

// WorktreeSlugs lists the worktrees agentproto made for this repository.
func (f *Factory) WorktreeSlugs() []string {
	repo, err := f.Repo()
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
func (f *Factory) ProfileNames() []string {
	cfg, _, err := f.Config()
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
