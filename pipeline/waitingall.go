package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/plans"
)

// PlanWaiting is a WP waiting for a decision, with the plan it is of.
type PlanWaiting struct {
	Project string `json:"project"`
	WaitingWP
}

// AllWaitingDecisions lists the WPs of every plan under .plans/ that wait
// for the supervisor's answer, plan by plan, for the views that look at
// the repository rather than one plan (the observation packet). A plan
// that does not load is named in problems, not hidden.
func AllWaitingDecisions(workTree string, l gitstore.Store) (out []PlanWaiting, problems []error, err error) {
	out = []PlanWaiting{}
	entries, err := os.ReadDir(filepath.Join(workTree, plans.Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() || plans.ValidateProject(e.Name()) != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(plans.ProjectDir(workTree, e.Name()), plans.PlanFile)); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p, err := plans.Load(workTree, name)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		ws, err := WaitingDecisions(l, p)
		if err != nil {
			return nil, nil, err
		}
		for _, w := range ws {
			out = append(out, PlanWaiting{Project: p.Name, WaitingWP: w})
		}
	}
	return out, problems, nil
}
