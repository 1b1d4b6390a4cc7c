package pipeline

import (
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plans"
)

// CheckPlan checks the plan as plan check does, against the base tree it
// was frozen on once it is frozen; dispatch and Run refuse a plan with
// errors before anything starts.
func (e *Env) CheckPlan(cfg config.Plans) *plans.Report {
	contract, err := plans.ContractBlock(e.Repo.WorkTree, cfg)
	if err != nil {
		return &plans.Report{Errors: 1}
	}
	in := plans.CheckInput{Contract: contract, WorkTree: e.Repo.WorkTree, AgentInstructions: cfg.AgentInstructions}
	if e.History.Frozen != nil {
		if bt, err := plans.ReadBaseTree(e.Repo, e.History.Frozen.BaseCommit); err == nil {
			in = in.WithBase(bt)
		}
	}
	return plans.Check(e.Project, in)
}
