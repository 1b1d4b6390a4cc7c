package pipeline

import (
	"fmt"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/worktree"
)

// ConsolidateDryRun says what Consolidate would do — the work packages it
// would merge, the wiring lines it would add and the findings that would
// stop it — and writes nothing: no worktree, no merge, no file, no ledger
// event. It reads git's objects only. Shared files belong to no work
// package, so their content after the merges is their content at the start
// (the integration branch, or the frozen base); what a merge could change is
// a parent directory turned into a symlink, so every branch's tree is
// checked for links along each wiring target.
func (e *Env) ConsolidateDryRun(renames ...Rename) (*Consolidation, error) {
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	if e, err = e.atFreeze(frozen); err != nil {
		return nil, err
	}
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	c := &Consolidation{Project: e.Project.Name, Merged: []string{}, Wiring: []AppliedWiring{}, Config: []ConfigMerge{}, Findings: []judge.Finding{}, DryRun: true}
	wps := order(e.Project)
	_, ready := e.readiness(wps, st)
	c.Findings = append(c.Findings, ready...)
	start := frozen.BaseCommit
	if m, err := worktree.Load(e.Repo, IntegrationSlug(e.Project.Name)); err == nil {
		c.Worktree, c.Branch = m.Path, m.Branch
		if h := e.commitOf("refs/heads/" + m.Branch); h != "" {
			start = h
		}
	}
	c.Head = start
	commits := []string{start}
	for _, wp := range wps {
		if h := e.commitOf("refs/heads/" + worktree.BranchPrefix + Slug(e.Project.Name, wp.ID)); h != "" {
			commits = append(commits, h)
			c.WouldMerge = append(c.WouldMerge, wp.ID)
		}
	}
	wiring, findings := collectWiring(e.Project, wps, st)
	c.Findings = append(c.Findings, findings...)
	for _, w := range wiring {
		refused := false
		for _, commit := range commits {
			if err := checkWiringInTree(e.Repo, commit, w.File); err != nil {
				c.Findings = append(c.Findings, judge.Finding{Code: "wiring-through-symlink", WP: w.WP, File: w.File, Message: err.Error()})
				refused = true
				break
			}
		}
		if refused {
			continue
		}
		text, _ := e.Repo.Blob(start, w.File) // absent: a new file
		w.Status = WiringWouldApply
		if hasLine(text, w.Line) {
			w.Status = WiringPresent
		}
		c.Wiring = append(c.Wiring, w)
	}
	if renames, err = standingRenames(renames, st); err != nil {
		return c, err
	}
	configs, err := e.planConfig(wps, st, frozen.BaseCommit, renames, c)
	if err != nil {
		return c, err
	}
	for _, cf := range configs {
		e.dryRunConfig(cf, commits, c)
	}
	c.OK = !hasErrors(c.Findings)
	switch {
	case len(ready) > 0:
		// The same exit codes as the real run would give.
		return c, fault.Refusedf("consolidate needs every work package verified and checkpointed; nothing was written")
	case !c.OK:
		return c, fmt.Errorf("consolidate would stop: %d findings; nothing was written", len(c.Findings))
	}
	return c, nil
}

// commitOf resolves a full ref name to its commit, "" when there is none.
func (e *Env) commitOf(ref string) string {
	commit, _ := e.Repo.Commit(ref)
	return commit
}

// dryRunConfig merges cf's changes into the file as the start commit has
// it, in memory, and records the diff it would apply.
func (e *Env) dryRunConfig(cf *configFile, commits []string, c *Consolidation) {
	for _, commit := range commits {
		if err := checkWiringInTree(e.Repo, commit, cf.file); err != nil {
			c.Findings = append(c.Findings, judge.Finding{Code: "wiring-through-symlink", File: cf.file, Message: err.Error()})
			return
		}
	}
	text, _ := e.Repo.Blob(commits[0], cf.file) // absent: a new file
	_, m, err := cf.merged(text)
	if err != nil {
		c.Findings = append(c.Findings, judge.Finding{Code: "config-malformed", File: cf.file, Message: err.Error()})
		return
	}
	if m.Diff != "" {
		m.Status = WiringWouldApply
	}
	c.Config = append(c.Config, m)
}
