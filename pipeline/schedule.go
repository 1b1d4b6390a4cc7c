package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// schedule runs waves until every wanted WP is verified: each wave is the
// WPs whose dependencies are verified, at most MaxParallel of them. With
// Wait false it launches one wave and leaves the rest to the daemon.
func (d *Dispatcher) schedule(want map[string]bool) error {
	for {
		w, err := d.launchWave(want)
		if err != nil || w == nil || !d.Wait {
			return err
		}
		if err := d.wait(w.wps, w.ids); err != nil {
			return err
		}
		retry, err := d.handleFaults(w.st, w.wps, w.ids)
		if err != nil {
			return err
		}
		if retry {
			continue // some WPs moved to another profile: run the wave again
		}
		if err := d.verifyWave(w.wps, w.ids); err != nil {
			return err
		}
	}
}

// wave is one launch: the WPs, their sessions and the state they were
// picked from.
type wave struct {
	wps []plans.WP
	ids []string
	st  *State
}

// launchWave picks and starts the next wave under the plan's dispatch
// lock; nil when every wanted WP is verified or, unattended, nothing is
// left to launch. Unattended (Wait false) it also attaches the policy
// that continues the run in the daemon.
func (d *Dispatcher) launchWave(want map[string]bool) (*wave, error) {
	p := d.Env.Project
	release, err := lockDispatch(d.Env.Repo.CommonDir, p.Name, lockWait)
	if err != nil {
		return nil, err
	}
	defer release()
	st, err := ReadState(d.Env.Ledger, p.Name)
	if err != nil {
		return nil, err
	}
	d.forgetDeletedWork(st)
	d.endVerifiedSessions(st)
	pending, ready := nextWave(p, st, want)
	if len(pending) == 0 {
		d.say("", "done", "every work package of %s is verified", p.Name)
		return nil, nil
	}
	waiting := 0
	if !d.Wait {
		ready, waiting = d.unattended(st, ready)
	}
	if len(ready) == 0 {
		if waiting > 0 {
			return nil, nil
		}
		var waits []string
		for _, wp := range pending {
			waits = append(waits, wp.ID+" waits on "+strings.Join(wp.DependsOn, ","))
		}
		return nil, fault.Refusedf("nothing can start: %s (dispatch them first, or without --wp)", strings.Join(waits, "; "))
	}
	if len(ready) > d.MaxParallel {
		ready = ready[:d.MaxParallel]
	}
	w := &wave{wps: ready, st: st}
	d.wave = newWaveSeen()
	defer func() { d.wave = nil }()
	// Each WP's session launches while the next WP is prepared. A WP that
	// cannot be prepared stops the wave there, as does a launch known to
	// have failed by then; the launches under way are waited for all the
	// same, and the first error in the wave's order is the one said.
	var starts []*started
	var unprepared error
	for _, wp := range ready {
		if slices.ContainsFunc(starts, (*started).broken) {
			break
		}
		s, err := d.start(st, wp)
		if err != nil {
			unprepared = fmt.Errorf("%s: %w", wp.ID, err)
			break
		}
		starts = append(starts, s)
	}
	var failed error
	for _, s := range starts {
		id, err := d.finish(s)
		if err != nil && failed == nil {
			failed = fmt.Errorf("%s: %w", s.wp, err)
		}
		w.ids = append(w.ids, id)
	}
	if failed == nil {
		failed = unprepared
	}
	if failed != nil {
		return nil, failed
	}
	if !d.Wait {
		return w, d.detach(ready, w.ids)
	}
	return w, nil
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

// detach leaves the wave to the daemon when nobody waits: a policy
// verifies each session when its turn ends, kills it once verified and
// runs dispatch again, which starts what the WP unblocks. A session that
// already has such a policy (a WP still running from an earlier wave)
// gets no second one, so it is verified once.
func (d *Dispatcher) detach(wps []plans.WP, ids []string) error {
	covered, err := d.continued()
	if err != nil {
		return err
	}
	wpOf := map[string]string{}
	var fresh []string
	for i, wp := range wps {
		if covered[ids[i]] == "" {
			wpOf[ids[i]] = wp.ID
			fresh = append(fresh, ids[i])
		}
	}
	if len(fresh) == 0 {
		d.say("", "started", "nothing new to start; the daemon's policies verify the sessions running and continue the run")
		return nil
	}
	pol, err := d.Sessions.AttachPolicy(context.Background(), sessions.PolicyArgs{Sessions: fresh, On: "turn-end",
		Do: []string{sessions.ActVerify, sessions.ActKill, sessions.ActDispatch}, Project: d.Env.Project.Name, WP: wpOf, Dir: d.Env.Repo.WorkTree,
		Dispatch: &sessions.DispatchArgs{WPs: d.only, MaxParallel: d.MaxParallel, NoPing: d.NoPing}})
	if err != nil {
		return err
	}
	d.say("", "started", "not waiting (--no-wait); policy %s verifies each on turn-end and kills it once verified, then runs dispatch again for the work packages it unblocks", pol.ID)
	return nil
}

// continued maps each session that a live policy of the daemon already
// verifies and continues the run from to that policy's id.
func (d *Dispatcher) continued() (map[string]string, error) {
	ps, err := d.Sessions.Policies(context.Background())
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range ps {
		if p.Canceled || p.On != "turn-end" || p.Project != d.Env.Project.Name || !slices.Contains(p.Do, sessions.ActDispatch) {
			continue
		}
		for _, id := range p.Sessions {
			out[id] = p.ID
		}
	}
	return out, nil
}

// unattended drops from a wave the WPs an unattended run must leave
// alone: one waiting for a decision whose session is gone would get a
// fresh session and its brief, and lose the question. A waiting WP whose
// session lives keeps it (start reuses it; nothing re-prompts it), and
// its policy verifies it once plan answer sent the choice.
func (d *Dispatcher) unattended(st *State, ready []plans.WP) ([]plans.WP, int) {
	store := sessions.OpenView(d.Env.Repo.CommonDir)
	var keep []plans.WP
	waiting := 0
	for _, wp := range ready {
		v, ok := st.Verifications[wp.ID]
		if ok && v.Verdict == WaitingDecision {
			last, _ := st.LastDispatch(wp.ID)
			if rec, err := store.Load(last.Session); err != nil || sessions.Terminal(rec.State) {
				waiting++
				d.say(wp.ID, WaitingDecision, "its session is gone; not restarted (git agentproto plan answer %s %s --choice TEXT, then dispatch)", d.Env.Project.Name, wp.ID)
				continue
			}
		}
		keep = append(keep, wp)
	}
	return keep, waiting
}

// verifyWave verifies every WP of a settled wave on disk — one that fails
// does not leave the others unverified, or each faulty WP would cost a
// round of its own — and then says what to do next: for each failed WP,
// its session to tell; else the decision a WP waits for; else changes
// outside that no WP is shown to have made. A verified WP's session is
// done and killed.
func (d *Dispatcher) verifyWave(wps []plans.WP, ids []string) error {
	var unattributed, failed []string
	var waitingFor error
	defer func() {
		for _, u := range unattributed {
			d.say("wave", "", "unattributed: %s", u)
		}
	}()
	for i, wp := range wps {
		v, err := d.Env.Verify(wp.ID, d.GateTimeout)
		if err != nil {
			return fmt.Errorf("%s: %w", wp.ID, err)
		}
		d.say(wp.ID, "verify", "%s (%d changed, %d out of perimeter, gate exit %d)", v.Verdict, len(v.Changed), len(v.OutOfScope), v.Gate.ExitCode)
		if v.Verdict == WaitingDecision {
			if waitingFor == nil {
				waitingFor = waiting(wp.ID, d.Env.Project.Name, v.Report.Stopped)
			}
			continue
		}
		if v.Verdict != Pass {
			for _, o := range v.OutOfScope {
				d.say(wp.ID, "", "outside the perimeter: %s", o)
			}
			for _, f := range v.Findings {
				d.say(wp.ID, "", "%s", f)
			}
			if hint := OutsideHint(d.Env.Project.Name, v); hint != "" {
				d.say(wp.ID, "", "%s", hint)
			}
			// What the agent or its adapter said went wrong is often the
			// reason (a script that does not parse, a tool that failed).
			if rec, err := sessions.OpenView(d.Env.Repo.CommonDir).Load(ids[i]); err == nil {
				for _, w := range lastOf(rec.Warnings, 3) {
					d.say(wp.ID, "", "its session said: %s", w)
				}
			}
			failed = append(failed, wp.ID+" (git agentproto sessions prompt "+ids[i]+" --text ...)")
			continue
		}
		for _, u := range v.Unattributed {
			// Each WP of the wave sees the same change: say it once.
			what, _, _ := strings.Cut(u, " (")
			if !slices.ContainsFunc(unattributed, func(s string) bool { return strings.HasPrefix(s, what+" (") }) {
				unattributed = append(unattributed, u)
			}
		}
		d.kill(ids[i])
	}
	switch {
	case len(failed) == 1:
		id, fix, _ := strings.Cut(failed[0], " (")
		return fmt.Errorf("%s failed verification; next: tell its session what to fix (%s, then run dispatch again", id, fix)
	case len(failed) > 1:
		return fmt.Errorf("%d work packages failed verification: %s; next: tell each session what to fix, then run dispatch again", len(failed), strings.Join(failed, ", "))
	case waitingFor != nil:
		return waitingFor
	case len(unattributed) > 0:
		return fmt.Errorf("the wave failed: %d change(s) outside the worktrees that no work package is shown to have made; next: look at them; if they are yours, run dispatch again (the wave's work packages passed and stay verified)", len(unattributed))
	}
	return nil
}

// wait blocks until every session of the wave ends its turn, reporting
// their state as it changes.
func (d *Dispatcher) wait(wps []plans.WP, ids []string) error {
	store := sessions.OpenView(d.Env.Repo.CommonDir)
	done := make(chan error, 1)
	go func() {
		_, err := d.Sessions.Wait(context.Background(), ids, sessions.UntilTurnEnd, d.Timeout)
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
			var still []string
			for i, id := range ids {
				rec, err := store.Load(id)
				if err != nil {
					return err
				}
				if rec.State != sessions.StateSettled && !sessions.Terminal(rec.State) {
					still = append(still, fmt.Sprintf("%s (session %s, %s)", wps[i].ID, id, rec.State))
				}
			}
			if len(still) > 0 {
				return fault.Timeoutf("the wave did not settle within %s: %s still at work in the sessions daemon, which carries on; nothing was verified yet; next: %s",
					d.Timeout, strings.Join(still, ", "), d.again())
			}
			return nil
		case <-tick.C:
			report()
		}
	}
}

// endVerifiedSessions ends the settled sessions of WPs verified after
// their last turn — by hand, with verify — which no wave's verify would
// end: a verified WP's session is done, as verifyWave says. One that had
// a turn since (a reaction, dispatch --text) is left to whoever gave it.
func (d *Dispatcher) endVerifiedSessions(st *State) {
	var wps []string
	for wp := range st.Verifications {
		wps = append(wps, wp)
	}
	slices.Sort(wps)
	for _, wp := range wps {
		last, ok := st.LastDispatch(wp)
		if !st.Verified(wp) || !ok || last.Session == "" {
			continue
		}
		rec, err := d.liveRecord(last.Session)
		if err != nil || rec.State != sessions.StateSettled || rec.LastActivity.After(st.VerifiedAt[wp]) {
			continue
		}
		d.kill(rec.ID)
		d.say(wp, "session", "%s ended: %s was verified after its last turn", rec.ID, wp)
	}
}

// forgetDeletedWork drops the verification of a WP whose worktree was
// deleted by hand before its checkpoint: what was verified lived only
// there, so the WP is dispatched again (its worktree made again on its
// branch, a new session).
func (d *Dispatcher) forgetDeletedWork(st *State) {
	for wp, v := range st.Verifications {
		if _, done := st.Checkpoints[wp]; done || v.Verdict != Pass {
			continue
		}
		m, err := worktree.Load(d.Env.Repo, Slug(d.Env.Project.Name, wp))
		if err != nil || !worktree.Missing(m) {
			continue
		}
		delete(st.Verifications, wp)
		d.say(wp, "worktree", "%s was deleted by hand before its checkpoint; its verified work went with it: dispatching it again", m.Path)
	}
}

// lastOf is the last n of ws.
func lastOf(ws []string, n int) []string {
	if len(ws) > n {
		return ws[len(ws)-n:]
	}
	return ws
}
