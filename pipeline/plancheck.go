package pipeline

import (
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plans"
)

// CheckPlan checks the plan as plan check does, against the base tree it
// was frozen on once it is frozen; dispatch and Run refuse a plan with
// errors before anything starts.
func (e *Env) CheckPlan(cfg config.Plans) *plans.Report {
	commit := ""
	if e.History.Frozen != nil {
		commit = e.History.Frozen.BaseCommit
	}
	r, err := plans.CheckAt(e.Repo, e.Project, cfg, commit)
	if err != nil {
		return &plans.Report{Errors: 1}
	}
	return r
}
