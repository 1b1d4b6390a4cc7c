package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
)

// schedule runs waves until every wanted WP is verified: each wave is the
// WPs whose dependencies are verified, at most MaxParallel of them.
func (d *Dispatcher) schedule(want map[string]bool) error {
	p := d.Env.Project
	for {
		st, err := ReadState(d.Env.Ledger, p.Name)
		if err != nil {
			return err
		}
		pending, ready := nextWave(p, st, want)
		if len(pending) == 0 {
			d.say("", "done", "every work package of %s is verified", p.Name)
			return nil
		}
		if len(ready) == 0 {
			var waits []string
			for _, wp := range pending {
				waits = append(waits, wp.ID+" waits on "+strings.Join(wp.DependsOn, ","))
			}
			return fault.Refusedf("nothing can start: %s (dispatch them first, or without --wp)", strings.Join(waits, "; "))
		}
		if len(ready) > d.MaxParallel {
			ready = ready[:d.MaxParallel]
		}
		var ids []string
		for _, wp := range ready {
			id, err := d.start(st, wp)
			if err != nil {
				return fmt.Errorf("%s: %w", wp.ID, err)
			}
			ids = append(ids, id)
		}
		if !d.Wait {
			return d.detach(ready, ids)
		}
		if err := d.wait(ready, ids); err != nil {
			return err
		}
		retry, err := d.handleFaults(st, ready, ids)
		if err != nil {
			return err
		}
		if retry {
			continue // some WPs moved to another profile: run the wave again
		}
		if err := d.verifyWave(ready, ids); err != nil {
			return err
		}
	}
}

// nextWave lists the WPs still to verify, and those of them whose
// dependencies are all verified.
func nextWave(p *plans.Project, st *State, want map[string]bool) (pending, ready []plans.WP) {
	for _, wp := range order(p) {
		if (len(want) > 0 && !want[wp.ID]) || st.Verified(wp.ID) {
			continue
		}
		pending = append(pending, wp)
		ok := true
		for _, dep := range wp.DependsOn {
			if !st.Verified(dep) {
				ok = false
			}
		}
		if ok {
			ready = append(ready, wp)
		}
	}
	return pending, ready
}

// detach leaves the wave to the daemon when nobody waits: it verifies each
// session when its turn ends and kills it once verified.
func (d *Dispatcher) detach(wps []plans.WP, ids []string) error {
	wpOf := map[string]string{}
	for i, wp := range wps {
		wpOf[ids[i]] = wp.ID
	}
	resp, err := d.Sessions.Call(&sessions.Request{Op: "policy-attach", Policy: &sessions.PolicyArgs{Sessions: ids, On: "turn-end",
		Do: []string{sessions.ActVerify, sessions.ActKill}, Project: d.Env.Project.Name, WP: wpOf, Dir: d.Env.Repo.WorkTree}})
	if err != nil {
		return err
	}
	d.say("", "started", "not waiting (--no-wait); policy %s verifies each on turn-end and kills it once verified", resp.Policies[0].ID)
	return nil
}

// verifyWave verifies each WP of a settled wave on disk and stops at the
// first that fails, saying what to do next; a verified WP's session is
// done and killed.
func (d *Dispatcher) verifyWave(wps []plans.WP, ids []string) error {
	for i, wp := range wps {
		v, err := d.Env.Verify(wp.ID, d.GateTimeout)
		if err != nil {
			return fmt.Errorf("%s: %w", wp.ID, err)
		}
		d.say(wp.ID, "verify", "%s (%d changed, %d out of perimeter, gate exit %d)", v.Verdict, len(v.Changed), len(v.OutOfScope), v.Gate.ExitCode)
		if v.Verdict == WaitingDecision {
			return waiting(wp.ID, d.Env.Project.Name, v.Report.Stopped)
		}
		if v.Verdict != Pass {
			for _, o := range v.OutOfScope {
				d.say(wp.ID, "", "outside the perimeter: %s", o)
			}
			for _, f := range v.Findings {
				d.say(wp.ID, "", "%s", f)
			}
			return fmt.Errorf("%s failed verification; next: tell its session what to fix (git agentproto sessions prompt %s --text ...), then run dispatch again", wp.ID, ids[i])
		}
		d.kill(ids[i])
	}
	return nil
}

// wait blocks until every session of the wave ends its turn, reporting
// their state as it changes.
func (d *Dispatcher) wait(wps []plans.WP, ids []string) error {
	store := sessions.NewStore(d.Env.Repo.CommonDir)
	done := make(chan error, 1)
	go func() {
		_, err := d.Sessions.Call(&sessions.Request{Op: "wait", IDs: ids, Until: "turn-end", Timeout: d.Timeout.String()})
		done <- err
	}()
	report := func() {
		var wave []SessionStatus
		for i, id := range ids {
			if rec, err := store.Load(id); err == nil {
				wave = append(wave, SessionStatus{WP: wps[i].ID, Record: rec})
			}
		}
		d.Report.Sessions(wave)
	}
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			report()
			if err != nil {
				return err
			}
			for i, id := range ids {
				rec, err := store.Load(id)
				if err != nil {
					return err
				}
				if rec.State != sessions.StateSettled && !sessions.Terminal(rec.State) {
					return fault.Timeoutf("%s: session %s still %s after %s", wps[i].ID, id, rec.State, d.Timeout)
				}
			}
			return nil
		case <-tick.C:
			report()
		}
	}
}
