package app

import (
	"context"
	"os"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
)

// Verified is what Verify found, with what it accepted first.
type Verified struct {
	Project string
	// Accepted are the changes outside the worktree taken as the user's
	// (AcceptOutside only; nil when nothing outside had changed).
	Accepted     *pipeline.OutsideAccepted
	Verification *pipeline.Verification
	// Hint says how to take changes outside the worktree as the user's,
	// when the verification saw some.
	Hint string
}

// Verify verifies a work package on disk: changed paths against its
// perimeter, the gate re-run. acceptOutside first takes the changes
// outside the worktree since the dispatch as the user's.
func (e *Env) Verify(ctx context.Context, project, wp string, acceptOutside bool) (*Verified, error) {
	pe, cfg, err := e.Pipeline(ctx, project)
	if err != nil {
		return nil, err
	}
	out := &Verified{Project: pe.Project.Name}
	if acceptOutside {
		if out.Accepted, err = pe.AcceptOutside(wp); err != nil {
			return nil, err
		}
	}
	if out.Verification, err = pe.Verify(wp, cfg.Dispatch.GateTimeout.Duration); err != nil {
		return out, err
	}
	out.Hint = pipeline.OutsideHint(pe.Project.Name, out.Verification)
	return out, nil
}

// Checkpoint commits exactly the in-perimeter changed paths of a verified
// work package.
func (e *Env) Checkpoint(ctx context.Context, project, wp, message string) (string, *pipeline.Checkpoint, error) {
	pe, _, err := e.Pipeline(ctx, project)
	if err != nil {
		return "", nil, err
	}
	cp, err := pe.Checkpoint(wp, message)
	return pe.Project.Name, cp, err
}

// ConsolidateOptions are the inputs of Consolidate.
type ConsolidateOptions struct {
	Project string
	// DryRun writes nothing.
	DryRun bool
	// Renames are WPn:OLD=NEW.
	Renames []string
	// Checkpoint first commits every work package that passed its latest
	// verification and has no checkpoint yet, as run does: the last wave
	// is never checkpointed by a dispatch that follows it.
	Checkpoint bool
}

// Consolidate merges the verified WP branches, applies the shared-file
// wiring and runs the gate. A consolidation stopped by findings comes
// back with its error.
func (e *Env) Consolidate(ctx context.Context, o ConsolidateOptions) (*pipeline.Consolidation, error) {
	pe, cfg, err := e.Pipeline(ctx, o.Project)
	if err != nil {
		return nil, err
	}
	rs, err := pipeline.ParseRenames(o.Renames)
	if err != nil {
		return nil, err
	}
	var done []string
	if o.Checkpoint && !o.DryRun {
		if done, err = checkpointVerified(pe); err != nil {
			return nil, err
		}
	}
	var c *pipeline.Consolidation
	if o.DryRun {
		c, err = pe.ConsolidateDryRun(rs...)
	} else {
		c, err = pe.Consolidate(cfg.Worktree.Root, cfg.Dispatch.GateTimeout.Duration, rs...)
	}
	if c != nil {
		c.Checkpointed = done
	}
	return c, err
}

// checkpointVerified checkpoints each work package whose latest
// verification passed and that has no checkpoint; the rest are left to
// consolidate's findings, which say what each lacks.
func checkpointVerified(pe *pipeline.Env) ([]string, error) {
	st, err := pipeline.ReadState(pe.Ledger, pe.Project.Name)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, wp := range pe.Project.Plan.WPs {
		v, verified := st.Verifications[wp.ID]
		if _, has := st.Checkpoints[wp.ID]; has || !verified || v.Verdict != pipeline.Pass {
			continue
		}
		if _, err := pe.Checkpoint(wp.ID, ""); err != nil {
			return done, err
		}
		done = append(done, wp.ID)
	}
	return done, nil
}

// E2E runs the [e2e] commands against the integration worktree and
// records their exit codes.
func (e *Env) E2E(ctx context.Context, project string) (*pipeline.E2EResult, error) {
	pe, cfg, err := e.Pipeline(ctx, project)
	if err != nil {
		return nil, err
	}
	if len(cfg.E2E.Commands) == 0 {
		return nil, fault.Invalidf("no [e2e] commands in %s", config.FileName)
	}
	return pe.E2E(cfg.E2E.Commands, cfg.Dispatch.GateTimeout.Duration)
}

// RunOptions are the inputs of Run.
type RunOptions struct {
	Project     string
	MaxParallel int
	// OpenPR opens the pull request at the end; DryRun builds it and
	// sends nothing.
	OpenPR, DryRun bool
	Report         pipeline.Reporter
}

// Run is the whole pipeline, stopping at the first red step. A failure
// before the first step still gives a result.
func (e *Env) Run(ctx context.Context, o RunOptions) (*pipeline.RunResult, error) {
	start := func(err error) (*pipeline.RunResult, error) {
		return &pipeline.RunResult{Project: o.Project, StoppedAt: "start", Error: err.Error()}, err
	}
	pe, cfg, err := e.Pipeline(ctx, o.Project)
	if err != nil {
		return start(err)
	}
	c, err := e.Sessions()
	if err != nil {
		return start(err)
	}
	return pe.Run(pipeline.RunOptions{Sessions: c, Config: cfg, MaxParallel: o.MaxParallel, CallerEnv: os.Environ(),
		OpenPR: o.OpenPR, DryRun: o.DryRun, Transport: forge.EnvTransport(), Report: o.Report})
}
