package pipeline

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/lessons"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// Dispatcher runs work packages: WP0 first and alone, then the others in
// parallel waves as their dependencies verify. Steps already in the ledger
// are not redone, so running it again continues where it stopped.
type Dispatcher struct {
	Env         *Env
	Sessions    *sessions.Client
	Config      config.Config
	MaxParallel int
	Wait        bool
	Timeout     time.Duration
	GateTimeout time.Duration
	Out         io.Writer
	// TTY redraws a live table while waiting; otherwise only changes are
	// printed, one line each.
	TTY       bool
	CallerEnv []string
	// NoPing skips the liveness ping ("Reply with exactly READY") a
	// session answers before it is given its brief.
	NoPing bool
	// Sleep waits out a rate limit; tests shorten it.
	Sleep func(time.Duration)

	rateRetries     map[string]int
	pendingFallback map[string]string // WP -> profile its next session runs on
}

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

func (d *Dispatcher) say(wp, what, format string, args ...any) {
	fmt.Fprintf(d.Out, "%-5s %-10s %s\n", wp, what, fmt.Sprintf(format, args...))
}

// Run dispatches the WPs named in only (all when empty).
func (d *Dispatcher) Run(only []string) error {
	p := d.Env.Project
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
	d.rateRetries, d.pendingFallback = map[string]int{}, map[string]string{}
	if err := d.preflight(); err != nil {
		return err
	}
	for {
		st, err := ReadState(d.Env.Ledger, p.Name)
		if err != nil {
			return err
		}
		var pending, ready []plans.WP
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
			// Nobody waits: the daemon verifies each session when its turn
			// ends and kills it once verified.
			wpOf := map[string]string{}
			for i, wp := range ready {
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
		for _, wp := range ready {
			v, err := d.Env.Verify(wp.ID, d.GateTimeout)
			if err != nil {
				return fmt.Errorf("%s: %w", wp.ID, err)
			}
			d.say(wp.ID, "verify", "%s (%d changed, %d out of perimeter, gate exit %d)", v.Verdict, len(v.Changed), len(v.OutOfScope), v.Gate.ExitCode)
			if v.Verdict != Pass {
				for _, o := range v.OutOfScope {
					d.say(wp.ID, "", "outside the perimeter: %s", o)
				}
				for _, f := range v.Findings {
					d.say(wp.ID, "", "%s", f)
				}
				sid := ids[indexOf(ready, wp.ID)]
				return fmt.Errorf("%s failed verification; next: tell its session what to fix (git agentproto sessions prompt %s --text ...), then run dispatch again", wp.ID, sid)
			}
			// Settled and verified: the session's work is done.
			d.kill(ids[indexOf(ready, wp.ID)])
		}
	}
}

func indexOf(wps []plans.WP, id string) int {
	for i, w := range wps {
		if w.ID == id {
			return i
		}
	}
	return 0
}

// start makes sure a WP has its worktree and a session, reusing a session
// that is still alive or settled and not yet judged.
func (d *Dispatcher) start(st *State, wp plans.WP) (string, error) {
	p := d.Env.Project
	frozen := d.Env.History.Frozen
	slug := Slug(p.Name, wp.ID)
	base, outsideSum := st.Base(wp.ID), st.Outside(wp.ID)
	m, err := worktree.Load(d.Env.Repo, slug)
	if err != nil {
		outsideSum = "" // a new worktree: nothing ran for it yet
		if base, err = d.startCommit(wp); err != nil {
			return "", err
		}
		mg := &worktree.Manager{Repo: d.Env.Repo, Config: d.Config.Worktree, Out: d.Out, By: "dispatch",
			Ledger: func() (*gitstore.Ledger, error) { return d.Env.Ledger, nil }}
		if m, err = mg.New(worktree.CreateOptions{Slug: slug, BaseName: frozen.Base, BaseCommit: base, HooksAt: frozen.BaseCommit}); err != nil {
			return "", err
		}
		d.say(wp.ID, "worktree", "%s (%s, %s checkout)", m.Path, m.Branch, m.Checkout)
	}
	if base == "" {
		base = m.BaseCommit // dispatched before the ledger recorded bases
	}
	if last, ok := st.LastDispatch(wp.ID); ok && d.pendingFallback[wp.ID] == "" {
		if rec, err := sessions.NewStore(d.Env.Repo.CommonDir).Load(last.Session); err == nil && !sessions.Terminal(rec.State) {
			d.say(wp.ID, "session", "%s already %s; reusing it", rec.ID, rec.State)
			return rec.ID, nil
		}
	}
	profile := d.profileFor(st, wp)
	adapter, model := wp.Adapter, wp.Model
	var allow []string
	if profile != "" {
		p := d.Config.Profiles[profile]
		adapter, model = p.Adapter, p.Model
		if p.KeyEnv != "" {
			allow = append(allow, p.KeyEnv)
		}
	}
	if adapter == "" {
		adapter = d.Config.Dispatch.Adapter
	}
	if adapter == "" {
		return "", fault.Invalidf("no adapter for %s: set profile or adapter in its [[wp]] entry, or [dispatch] fallback or adapter in agentproto.toml", wp.ID)
	}
	// The options are resolved once the adapter is known, wherever it was
	// named: [plugins.ADAPTER] options, then the profile's.
	launch := profiles.Launch{Adapter: adapter, Profile: profile}
	options := launch.Options(d.Config)
	found, err := host.Discover(adapter, d.Config.Plugins, d.Env.Repo.WorkTree)
	if err != nil {
		return "", err
	}
	if err := launch.RequireTrust(d.Config, d.Env.Repo.WorkTree, d.Env.Repo.CommonDir, m.Path, ""); err != nil {
		return "", err
	}
	ls, err := lessons.List(d.Env.Ledger, p.Plan.Tags, len(p.Plan.Tags) == 0, lessons.Recent)
	if err != nil {
		return "", err
	}
	prompt, err := plans.Render(p, d.Env.History, wp.ID, lessons.Texts(ls))
	if err != nil {
		return "", err
	}
	// What lies outside the worktree, as it was before the first session
	// of it could touch it; verify compares. A later session of the same
	// worktree keeps that snapshot, so an earlier one's writes are not
	// taken as the starting point.
	if outsideSum == "" {
		outside, err := SnapshotOutside(d.Env.Repo, slug)
		if err != nil {
			return "", err
		}
		if outsideSum, err = SaveOutside(d.Env.Repo.CommonDir, outside); err != nil {
			return "", err
		}
	}
	resp, err := d.Sessions.Call(&sessions.Request{Op: "start", Start: &sessions.StartArgs{
		Adapter: adapter, Path: found.Path, SHA256: found.SHA256, Model: model, Dir: m.Path, Worktree: slug,
		Prompt: prompt, Label: p.Name + "/" + wp.ID, Env: withPerimeter(d.CallerEnv, p, wp), Options: options,
		Ping: !d.NoPing, AllowEnv: allow, Profile: profile}})
	if err != nil && (resp == nil || resp.Session == nil) {
		return "", err
	}
	brief, _ := p.BriefPath(&wp)
	disp := Dispatch{Project: p.Name, WP: wp.ID, Worktree: slug, Session: resp.Session.ID, Adapter: adapter, Model: model,
		Profile: profile, Brief: frozen.Files[baseName(brief)], Attempt: len(st.Dispatches[wp.ID]) + 1, Base: base, Outside: outsideSum}
	id := fmt.Sprintf("pipeline/%s/%s/dispatch/%d", p.Name, wp.ID, disp.Attempt)
	if err := d.Env.record(KindDispatched, id, disp, nil); err != nil {
		return "", err
	}
	delete(d.pendingFallback, wp.ID)
	if err != nil {
		// The session failed to start (a dead provider, a failed liveness
		// ping): handleFaults moves the WP to the next profile.
		d.say(wp.ID, "session", "%s failed to start: %v", resp.Session.ID, err)
		return resp.Session.ID, nil
	}
	how := adapter
	if profile != "" {
		how = "profile " + profile + ", " + adapter
	}
	d.say(wp.ID, "session", "%s started (%s)", resp.Session.ID, how)
	return resp.Session.ID, nil
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
	store := sessions.NewStore(d.Env.Repo.CommonDir)
	retry := false
	for i, wp := range wps {
		rec, err := store.Load(ids[i])
		if err != nil {
			return false, err
		}
		// The provider's own fault says more than the empty turn it causes.
		fault := ""
		for _, f := range rec.Faults {
			if (profiles.DeadFaults[f] || f == sdk.FaultRateLimited) && (fault == "" || fault == sdk.FaultEmptyTurn) {
				fault = f
			}
		}
		if rec.State == sessions.StateFailed {
			switch {
			case strings.Contains(rec.Failure, "liveness ping"):
				fault = "ping_failed"
			case fault == "":
				return false, fmt.Errorf("%s: session %s failed: %s", wp.ID, rec.ID, rec.Failure)
			}
		}
		if fault == "" {
			continue
		}
		from := rec.Profile
		if fault == sdk.FaultRateLimited && d.rateRetries[wp.ID] < 2 {
			d.rateRetries[wp.ID]++
			wait := duration(d.Config.Dispatch.RateLimitWait) << (d.rateRetries[wp.ID] - 1)
			d.say(wp.ID, "rate-limit", "waiting %s before trying %s again", wait, or(from, rec.Adapter))
			d.Sleep(wait)
			d.kill(rec.ID)
			d.pendingFallback[wp.ID] = from
			retry = true
			continue
		}
		to := d.nextProfile(from)
		if to == "" {
			if fault == sdk.FaultEmptyTurn && rec.State != sessions.StateFailed {
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

func fault2(wp string, rec *sessions.Record, f string) error {
	return fmt.Errorf("%s: session %s hit %s and no fallback profile is left ([dispatch] fallback)", wp, rec.ID, f)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func duration(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

func (d *Dispatcher) kill(id string) {
	d.Sessions.Call(&sessions.Request{Op: "kill", ID: id})
}

// wait blocks until every session of the wave ends its turn, printing
// state changes as they happen.
func (d *Dispatcher) wait(wps []plans.WP, ids []string) error {
	store := sessions.NewStore(d.Env.Repo.CommonDir)
	done := make(chan error, 1)
	go func() {
		_, err := d.Sessions.Call(&sessions.Request{Op: "wait", IDs: ids, Until: "turn-end", Timeout: d.Timeout.String()})
		done <- err
	}()
	last := map[string]string{}
	drawn := 0
	report := func() {
		if d.TTY {
			// A live table, redrawn in place: one line per WP.
			if drawn > 0 {
				fmt.Fprintf(d.Out, "\x1b[%dA", drawn)
			}
			drawn = 0
			for i, id := range ids {
				rec, err := store.Load(id)
				if err != nil {
					continue
				}
				fmt.Fprintf(d.Out, "\x1b[2K%-5s %-9s turns=%-3d last activity %s  %s\n", wps[i].ID, rec.State, rec.Turns,
					rec.LastActivity.Local().Format("15:04:05"), rec.ID)
				drawn++
			}
			return
		}
		for i, id := range ids {
			rec, err := store.Load(id)
			if err != nil {
				continue
			}
			line := fmt.Sprintf("%s turns=%d", rec.State, rec.Turns)
			if last[id] != line {
				last[id] = line
				d.say(wps[i].ID, rec.State, "turns=%d, last activity %s", rec.Turns, rec.LastActivity.Local().Format("15:04:05"))
			}
		}
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

func filepathDir(common string) string {
	if strings.HasSuffix(common, string(os.PathSeparator)+".git") {
		return strings.TrimSuffix(common, string(os.PathSeparator)+".git")
	}
	return common
}

// preflight checks every profile the plan may use and stops with the table
// when one has a problem.
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
	bad := false
	for _, r := range rs {
		if !r.OK {
			bad = true
		}
	}
	if !bad {
		return nil
	}
	fmt.Fprintf(d.Out, "%-14s %-12s %-20s %s\n", "PROFILE", "ADAPTER", "MODEL", "PROBLEMS")
	for _, r := range rs {
		fmt.Fprintf(d.Out, "%-14s %-12s %-20s %s\n", r.Name, r.Adapter, or(r.Model, "-"), strings.Join(r.Problems, "; "))
	}
	return fault.Refusedf("profile preflight failed; fix the profiles above (git agentproto profile check)")
}
