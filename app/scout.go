package app

import (
	"context"
	"os"

	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/scout"
)

// ScoutOptions are the inputs of Scout.
type ScoutOptions struct {
	Project string
	// Question is what to answer; empty maps what a plan needs.
	Question string
	// Profile or Adapter runs the scout; neither: [dispatch] adapter.
	Profile, Adapter string
	// Base is the revision scouted; default [worktree] base, origin/HEAD, HEAD.
	Base    string
	Replace bool
	NoPing  bool
}

// Scout runs a read-only recon session whose every claim cites the
// source, copies its RECON.md into the plan and checks each citation.
// What the session says while it runs goes to the Env's log.
func (e *Env) Scout(ctx context.Context, o ScoutOptions) (*pipeline.Scouted, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	l, err := e.Ledger()
	if err != nil {
		return nil, err
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	return pipeline.Scout(pipeline.ScoutOptions{Repo: repo, Config: cfg, Ledger: l, Sessions: c,
		Project: o.Project, Question: o.Question, Profile: o.Profile, Adapter: o.Adapter, Base: o.Base,
		Replace: o.Replace, NoPing: o.NoPing, Env: os.Environ(), Out: e.log()})
}

// ScoutCheck checks every citation of the plan's RECON.md again, against
// base, else the plan's base, else the commit the last scout run read.
func (e *Env) ScoutCheck(ctx context.Context, project, base string) (*scout.Result, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	commit, err := pipeline.ScoutCheckBase(repo, e.ReadLedger, project, base)
	if err != nil {
		return nil, err
	}
	return pipeline.ScoutCheck(repo, project, commit)
}
