package plans

import (
	"fmt"
	"path/filepath"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// FrozenPlan is p as it was frozen: its work packages (perimeters,
// briefs), gate and shared files from the freeze, never from the live
// .plans/ folder, which lies where an executor can write. The shared files
// are read from plan.toml as the freeze keeps it.
func FrozenPlan(repo *gitrepo.Repo, p *Project, f *Frozen) (*Project, error) {
	fp := *p
	fp.Plan.WPs = f.WPs
	fp.Plan.Gate = f.Gate
	if f.PlanBlob == "" {
		return nil, fmt.Errorf("the freeze of %s (%s) holds no %s: freeze the plan again", p.Name, f.RecordID, PlanFile)
	}
	raw, err := repo.BlobByID(f.PlanBlob)
	if err != nil {
		return nil, fmt.Errorf("reading %s as frozen (%s): %w", PlanFile, f.RecordID, err)
	}
	var frozen Plan
	if err := config.DecodeStrict(raw, filepath.Join(Dir, p.Name, PlanFile)+" (frozen)", &frozen); err != nil {
		return nil, err
	}
	fp.Plan.Shared = frozen.Shared
	return &fp, nil
}
