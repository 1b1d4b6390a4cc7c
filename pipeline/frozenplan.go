package pipeline

import (
	"path"

	"github.com/agentproto/agentproto/plans"
)

// Verify, checkpoint, consolidate and review judge a WP against the
// frozen plan only: the live .plans/ folder lies where an executor can
// write, and one that added a directory to its own owns, or a file to the
// shared ones, would otherwise have its writes there accepted.

// atFreeze is e judging by the frozen plan: its Project's work packages
// (perimeters, briefs), gate and shared files are the freeze's.
func (e *Env) atFreeze(f *plans.Frozen) (*Env, error) {
	fp, err := plans.FrozenPlan(e.Repo, e.Project, f)
	if err != nil {
		return nil, err
	}
	fe := *e
	fe.Project = fp
	return &fe, nil
}

// planChanged lists, as findings, each file of the plan that is not as it
// was frozen (or amended since): whoever changed it, the verify that sees
// it does not pass on a plan it cannot trust.
func (e *Env) planChanged() ([]string, error) {
	drift, err := plans.Drift(e.Project, e.History)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range drift {
		if d.State != "unchanged" {
			out = append(out, "plan-changed: "+path.Join(plans.Dir, e.Project.Name, d.Name)+" is "+d.State+" since the freeze: a work package may not edit the plan, and it is judged against the frozen one")
		}
	}
	return out, nil
}
