package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
)

// Dispatcher runs work packages: WP0 first and alone, then the others in
// parallel waves as their dependencies verify. Steps already in the ledger
// are not redone, so running it again continues where it stopped.
//
// The work is split by concern: schedule.go picks and waits for waves,
// launch.go gives a WP its worktree and session, fallback.go moves a WP
// whose provider fails to the next profile.
type Dispatcher struct {
	Env         *Env
	Sessions    *sessions.Client
	Config      config.Config
	MaxParallel int
	Wait        bool
	Timeout     time.Duration
	GateTimeout time.Duration
	// Report is told what happens; nil reports nothing.
	Report    Reporter
	CallerEnv []string
	// NoPing skips the liveness ping ("Reply with exactly READY") a
	// session answers before it is given its brief.
	NoPing bool
	// Sleep waits out a rate limit; tests shorten it.
	Sleep func(time.Duration)

	only            []string // the WPs asked for; later waves keep to them
	rateRetries     map[string]int
	pendingFallback map[string]string // WP -> profile its next session runs on
	// wave is what the starts of the wave being launched share (nil
	// between waves).
	wave *waveSeen
}

func (d *Dispatcher) say(wp, what, format string, args ...any) {
	d.Report.Event(wp, what, fmt.Sprintf(format, args...))
}

// Run dispatches the WPs named in only (all when empty).
func (d *Dispatcher) Run(only []string) error {
	p := d.Env.Project
	// A WP's worktree is checked out with git's configuration: listed
	// while the plan and the ledger are read below (one git process spent
	// for nothing when no WP needs a worktree).
	defer d.Env.Repo.PrefetchConfigList()()
	if _, err := d.Env.Frozen(); err != nil {
		return fault.Refusedf("%v", err)
	}
	drift, err := plans.Drift(p, d.Env.History)
	if err != nil {
		return err
	}
	for _, f := range drift {
		if f.State != "unchanged" {
			return fault.Refusedf("%s is %s since the freeze: freeze the plan again before dispatching", f.Name, f.State)
		}
	}
	want := map[string]bool{}
	for _, id := range only {
		if _, err := p.WP(id); err != nil {
			return err
		}
		want[id] = true
	}
	if d.MaxParallel < 1 {
		d.MaxParallel = 4
	}
	if d.Sleep == nil {
		d.Sleep = time.Sleep
	}
	if d.Report == nil {
		d.Report = Discard
	}
	d.only = only
	d.rateRetries, d.pendingFallback = map[string]int{}, map[string]string{}
	if err := d.Config.Worktree.NeedsOwnWorktree(os.Getenv, "dispatch (each WP)"); err != nil {
		return err
	}
	if err := d.preflight(); err != nil {
		return err
	}
	err = d.schedule(want)
	if errors.Is(err, sessions.ErrDaemonGone) {
		// Its sessions died with it; their worktrees and writes stay, and
		// the next dispatch gives them new sessions there.
		return fmt.Errorf("%w; the sessions it ran died with it, their worktrees stay; next: %s", err, d.again())
	}
	return err
}

// again is the command that picks this dispatch up where it stopped.
func (d *Dispatcher) again() string {
	cmd := "git agentproto dispatch " + d.Env.Project.Name
	for _, wp := range d.only {
		cmd += " --wp " + wp
	}
	return cmd
}

func (d *Dispatcher) kill(id string) {
	d.Sessions.Kill(context.Background(), id)
}

// preflight checks every profile the plan may use and stops, reporting
// the table, when one has a problem.
func (d *Dispatcher) preflight() error {
	names := map[string]bool{}
	for _, wp := range d.Env.Project.Plan.WPs {
		if wp.Profile != "" {
			names[wp.Profile] = true
		}
	}
	for _, f := range d.Config.Dispatch.Fallback {
		names[f] = true
	}
	if len(names) == 0 {
		return nil
	}
	var list []string
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	rs := profiles.Check(d.Config, d.Env.Repo.WorkTree, list, os.Getenv)
	for _, r := range rs {
		if !r.OK {
			d.Report.Preflight(rs)
			return fault.Refusedf("profile preflight failed; fix the profiles above (git agentproto profile check)")
		}
	}
	return nil
}
