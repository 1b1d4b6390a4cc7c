package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/plugins/vocab"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
)

// KindFallback records a WP moving to the next profile.
const KindFallback = "wp_fallback"

// Fallback is the data of a wp_fallback event.
type Fallback struct {
	Project string `json:"project"`
	WP      string `json:"wp"`
	Session string `json:"session"`
	From    string `json:"from_profile"`
	To      string `json:"to_profile"`
	Fault   string `json:"fault"`
	Reason  string `json:"reason"`
}

// profileFor is the profile a WP runs on: the one of its last dispatch
// (a fallback moves it), else its own, else the first fallback profile.
func (d *Dispatcher) profileFor(st *State, wp plans.WP) string {
	if last, ok := st.LastDispatch(wp.ID); ok && last.Profile != "" {
		if next, ok := d.pendingFallback[wp.ID]; ok {
			return next
		}
		return last.Profile
	}
	if next, ok := d.pendingFallback[wp.ID]; ok {
		return next
	}
	if wp.Profile != "" {
		return wp.Profile
	}
	if len(d.Config.Dispatch.Fallback) > 0 {
		return d.Config.Dispatch.Fallback[0]
	}
	return ""
}

// nextProfile is the fallback profile after from.
func (d *Dispatcher) nextProfile(from string) string {
	fb := d.Config.Dispatch.Fallback
	for i, p := range fb {
		if p == from && i+1 < len(fb) {
			return fb[i+1]
		}
	}
	if from == "" && len(fb) > 0 {
		return fb[0]
	}
	return ""
}

// handleFaults looks at the wave's sessions: a provider-dead fault (or a
// failed liveness ping) moves the WP to the next profile, recorded in the
// ledger; a rate limit is waited out and retried first. It reports whether
// the wave must run again.
func (d *Dispatcher) handleFaults(st *State, wps []plans.WP, ids []string) (bool, error) {
	store := sessions.OpenView(d.Env.Repo.CommonDir)
	retry := false
	for i, wp := range wps {
		rec, err := store.Load(ids[i])
		if err != nil {
			return false, err
		}
		// An agent that never came up is this machine's problem, not its
		// provider's: another provider would not start it either.
		if slices.Contains(rec.Faults, vocab.FaultAdapterStartTimeout) {
			return false, fmt.Errorf("%s: session %s could not start its agent (%s): %s; no fallback profile is tried for it: fix the agent (or the WP's profile), then dispatch %s again",
				wp.ID, rec.ID, vocab.FaultAdapterStartTimeout, startFailure(rec), d.Env.Project.Name)
		}
		// The provider's own fault says more than the empty turn it causes.
		// A session the daemon stopped at a budget is a dead provider too:
		// the next profile is the cheaper one, and without one dispatch
		// stops for the supervisor.
		fault := ""
		for _, f := range rec.Faults {
			if (profiles.DeadFaults[f] || f == vocab.FaultRateLimited || f == spend.FaultBudgetExhausted) && (fault == "" || fault == vocab.FaultEmptyTurn) {
				fault = f
			}
		}
		if rec.State == sessions.StateFailed {
			switch {
			case strings.Contains(rec.Failure, "liveness ping"):
				fault = "ping_failed"
			case rec.Failure == sessions.FailureDaemonStopped:
				// A new daemon answered the wait and found the session
				// dead: the same stop as a wait cut by the daemon's end.
				return false, fmt.Errorf("%s: session %s failed: %w", wp.ID, rec.ID, sessions.ErrDaemonGone)
			case fault == "":
				return false, fmt.Errorf("%s: session %s failed: %s", wp.ID, rec.ID, rec.Failure)
			}
		}
		if fault == "" {
			continue
		}
		from := rec.Profile
		if fault == vocab.FaultRateLimited && d.rateRetries[wp.ID] < 2 {
			d.rateRetries[wp.ID]++
			wait := d.Config.Dispatch.RateLimitWait.Duration << (d.rateRetries[wp.ID] - 1)
			d.say(wp.ID, "rate-limit", "waiting %s before trying %s again", wait, or(from, rec.Adapter))
			d.Sleep(wait)
			d.kill(rec.ID)
			d.pendingFallback[wp.ID] = from
			retry = true
			continue
		}
		to := d.nextProfile(from)
		if to == "" {
			if fault == vocab.FaultEmptyTurn && rec.State != sessions.StateFailed {
				// Only a warning without a profile to move to: the disk,
				// not the missing output, decides (verify runs next).
				d.say(wp.ID, "warning", "session %s ended its turn with no output", rec.ID)
				continue
			}
			return false, fault2(wp.ID, rec, fault)
		}
		fb := Fallback{Project: d.Env.Project.Name, WP: wp.ID, Session: rec.ID, From: from, To: to, Fault: fault, Reason: rec.Failure}
		id := fmt.Sprintf("pipeline/%s/%s/fallback/%s", d.Env.Project.Name, wp.ID, rec.ID)
		if err := d.Env.record(KindFallback, id, fb, nil); err != nil {
			return false, err
		}
		d.say(wp.ID, "fallback", "%s on %s: moving from %s to profile %s", fault, rec.ID, or(from, rec.Adapter), to)
		d.kill(rec.ID)
		d.pendingFallback[wp.ID] = to
		retry = true
	}
	return retry, nil
}

// startFailure is what the adapter said of an agent that did not start.
func startFailure(rec *sessions.Record) string {
	for i := len(rec.Warnings) - 1; i >= 0; i-- {
		if strings.Contains(rec.Warnings[i], "did not finish starting") {
			return rec.Warnings[i]
		}
	}
	return "it did not finish starting"
}

func fault2(wp string, rec *sessions.Record, f string) error {
	return fmt.Errorf("%s: session %s hit %s and no fallback profile is left ([dispatch] fallback)", wp, rec.ID, f)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
