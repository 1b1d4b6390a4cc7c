package pipeline

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/plugins/host"
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
	CallerEnv   []string
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
			d.say("", "started", "not waiting (--no-wait): git agentproto sessions wait %s", strings.Join(ids, " "))
			return nil
		}
		if err := d.wait(ready, ids); err != nil {
			return err
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
	m, err := worktree.Load(d.Env.Repo, slug)
	if err != nil {
		hooks, err := worktree.HooksAt(d.Env.Repo, frozen.BaseCommit)
		if err != nil {
			return "", err
		}
		if err := worktree.RequireTrust(d.Env.Repo, hooks, frozen.Base); err != nil {
			return "", err
		}
		path, err := worktree.Location(d.Env.Repo, d.Config.Worktree.Root, slug)
		if err != nil {
			return "", err
		}
		m, err = worktree.Provision(d.Env.Repo, worktree.NewOptions{Slug: slug, Path: path, Base: frozen.Base, BaseCommit: frozen.BaseCommit})
		if err != nil {
			return "", err
		}
		if !hooks.Empty() {
			if _, err := worktree.CopyFiles(filepathDir(d.Env.Repo.CommonDir), hooks.Copy, m, d.Out); err != nil {
				return "", err
			}
			if _, err := worktree.RunHooks("setup", hooks.Setup, m, hooks.Env, d.Out); err != nil {
				worktree.MarkFailed(d.Env.Repo, m, err)
				return "", err
			}
		}
		d.say(wp.ID, "worktree", "%s (%s)", m.Path, m.Branch)
	}
	if last, ok := st.LastDispatch(wp.ID); ok {
		if rec, err := sessions.NewStore(d.Env.Repo.CommonDir).Load(last.Session); err == nil && !sessions.Terminal(rec.State) {
			d.say(wp.ID, "session", "%s already %s; reusing it", rec.ID, rec.State)
			return rec.ID, nil
		}
	}
	adapter := wp.Adapter
	if adapter == "" {
		adapter = d.Config.Dispatch.Adapter
	}
	if adapter == "" {
		return "", fault.Invalidf("no adapter for %s: set adapter in its [[wp]] entry or [dispatch] adapter in agentproto.toml", wp.ID)
	}
	found, err := host.Discover(adapter, d.Config.Plugins, d.Env.Repo.WorkTree)
	if err != nil {
		return "", err
	}
	prompt, err := plans.Render(p, d.Env.History, wp.ID, nil)
	if err != nil {
		return "", err
	}
	resp, err := d.Sessions.Call(&sessions.Request{Op: "start", Start: &sessions.StartArgs{
		Adapter: adapter, Path: found.Path, SHA256: found.SHA256, Model: wp.Model, Dir: m.Path, Worktree: slug,
		Prompt: prompt, Label: p.Name + "/" + wp.ID, Env: d.CallerEnv, Options: d.Config.Plugins[adapter].Options}})
	if err != nil {
		return "", err
	}
	brief, _ := p.BriefPath(&wp)
	disp := Dispatch{Project: p.Name, WP: wp.ID, Worktree: slug, Session: resp.Session.ID, Adapter: adapter, Model: wp.Model,
		Brief: frozen.Files[baseName(brief)], Attempt: len(st.Dispatches[wp.ID]) + 1}
	id := fmt.Sprintf("pipeline/%s/%s/dispatch/%d", p.Name, wp.ID, disp.Attempt)
	if err := d.Env.record(KindDispatched, id, disp, nil); err != nil {
		return "", err
	}
	d.say(wp.ID, "session", "%s started (%s)", resp.Session.ID, adapter)
	return resp.Session.ID, nil
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
	report := func() {
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
				if rec.State == sessions.StateFailed {
					return fmt.Errorf("%s: session %s failed: %s", wps[i].ID, id, rec.Failure)
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
