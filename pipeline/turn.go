package pipeline

import (
	"fmt"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
)

// Turns waits for the turns given to work packages outside a wave — the
// way back after a review found problems: their agents were told what to
// fix, in the sessions ids (one per WP of wpIDs) — and verifies each on
// disk as a wave is, recording the new verifications. A WP verified
// before is verified again: its worktree changed.
func (d *Dispatcher) Turns(wpIDs, ids []string) error {
	if len(wpIDs) != len(ids) {
		return fault.Invalidf("%d work packages, %d sessions", len(wpIDs), len(ids))
	}
	if d.Report == nil {
		d.Report = Discard
	}
	var wps []plans.WP
	for _, id := range wpIDs {
		wp, err := d.Env.Project.WP(id)
		if err != nil {
			return err
		}
		wps = append(wps, *wp)
	}
	if err := d.wait(wps, ids); err != nil {
		return err
	}
	if err := d.verifyWave(wps, ids); err != nil {
		return fmt.Errorf("after the turn: %w", err)
	}
	return nil
}
