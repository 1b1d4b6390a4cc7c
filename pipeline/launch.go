package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentproto/agentproto/gitstore"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/lessons"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// started is a WP's session as start left it: a launch under way, or
// none (the WP keeps its live session, id).
type started struct {
	wp   string
	id   string
	done chan struct{} // closed when the launch has ended; nil for none
	r    launched      // the launch's end, once done is closed
}

// start makes sure a WP has its worktree and a session, reusing a session
// that is still alive or settled and not yet judged. The worktree, the
// snapshots and the prompt are made here; the daemon's launch (the
// sandbox, the adapter, its liveness ping — seconds with a real agent)
// and the dispatch record that names the session go on while the caller
// prepares the next WP of the wave; finish waits for them.
func (d *Dispatcher) start(st *State, wp plans.WP) (*started, error) {
	id, launch, err := d.prepare(st, wp)
	if err != nil {
		return nil, err
	}
	s := &started{wp: wp.ID, id: id}
	if launch != nil {
		s.done = make(chan struct{})
		go func() {
			defer close(s.done)
			s.r = launch()
		}()
	}
	return s, nil
}

// broken reports, without waiting, a launch that has already ended in an
// error: no session, or no record of it.
func (s *started) broken() bool {
	if s.done == nil {
		return false
	}
	select {
	case <-s.done:
		return s.r.err != nil
	default:
		return false
	}
}

// finish waits for s's launch and says how it went. What is said and
// forgotten happens here, on the caller's goroutine: the reporter and the
// dispatcher's maps are not shared with the launches still under way.
func (d *Dispatcher) finish(s *started) (string, error) {
	if s.done == nil {
		return s.id, nil
	}
	<-s.done
	r := s.r
	if r.recorded {
		delete(d.pendingFallback, s.wp)
	}
	if r.failed != nil {
		// The session failed to start (a dead provider, a failed
		// liveness ping): handleFaults moves the WP to the next profile.
		d.say(s.wp, "session", "%s failed to start: %v", r.id, r.failed)
		return r.id, nil
	}
	if r.err != nil {
		return "", r.err
	}
	d.say(s.wp, "session", "%s started (%s)", r.id, r.describe)
	return r.id, nil
}

// launched is what a session's launch came to: its id, whether its
// dispatch was recorded, the adapter as said, and a start that failed
// (failed, the session exists) or an error (no session, or no record).
type launched struct {
	id, describe string
	recorded     bool
	failed, err  error
}

// prepare does a start's part that must happen in order, one WP after
// the other: an id when the WP keeps its live session, else the launch
// still to run.
func (d *Dispatcher) prepare(st *State, wp plans.WP) (string, func() launched, error) {
	p := d.Env.Project
	frozen := d.Env.History.Frozen
	slug := Slug(p.Name, wp.ID)
	base, outsideSum := st.Base(wp.ID), st.Outside(wp.ID)
	m, err := worktree.Load(d.Env.Repo, slug)
	fresh := errors.Is(err, worktree.ErrNotFound)
	if err != nil && !fresh {
		return "", nil, err // a worktree there, unreadable: never replaced
	}
	remade := false
	var byGit func() (Outside, error) // the snapshot's git part, taken early
	if !fresh && worktree.Missing(m) {
		// Deleted by hand: made again on its branch, where its commits are.
		if err := worktree.Remake(d.Env.Repo, m); err != nil {
			return "", nil, err
		}
		remade = true
		d.say(wp.ID, "worktree", "%s was deleted by hand; made it again from %s (what was not committed there is gone; setup hooks did not run again)", m.Path, m.Branch)
	}
	if fresh {
		outsideSum = "" // a new worktree: nothing ran for it yet
		if err := d.setAsideBranch(wp.ID, slug, len(st.Dispatches[wp.ID])); err != nil {
			return "", nil, err
		}
		// What git tells of the outside (the snapshot's git commands) is
		// taken while the worktree is made when nothing that runs for it
		// can write there: a WP never dispatched (no session of it to end
		// first) that starts from the base (no dependency to checkpoint,
		// no git command), no setup hook, and the fast checkout (git's own
		// runs the user's git hooks); else it is taken once it is made.
		if len(st.Dispatches[wp.ID]) == 0 && len(wp.DependsOn) == 0 && noSetupHooks(d.Env.Repo, frozen.BaseCommit) {
			byGit = goOutside(func() (Outside, error) { return snapshotByGit(d.Env.Repo) })
			defer byGit() // not left running when prepare stops early
		}
		if m, base, err = d.provision(wp, slug); err != nil {
			return "", nil, err
		}
		if byGit != nil && m.Checkout != worktree.CheckoutFast {
			byGit = nil
		}
		d.say(wp.ID, "worktree", "%s (%s, %s checkout)", m.Path, m.Branch, m.Checkout)
	}
	if base == "" {
		base = m.BaseCommit // dispatched before the ledger recorded bases
	}
	brief, _ := p.BriefPath(&wp)
	briefSum := frozen.Files[baseName(brief)]
	if last, ok := st.LastDispatch(wp.ID); ok && d.pendingFallback[wp.ID] == "" {
		if rec, err := d.liveRecord(last.Session); err == nil && !sessions.Terminal(rec.State) {
			// A plan frozen again since gave the WP another brief: the
			// session works from the one it was sent, so it goes.
			stale := last.Brief != "" && briefSum != "" && last.Brief != briefSum
			if !fresh && !remade && !stale {
				d.say(wp.ID, "session", "%s already %s; reusing it", rec.ID, rec.State)
				return rec.ID, nil, nil
			}
			// Its worktree was removed: the session works in a directory
			// that is gone, and the new worktree gets a new one.
			why := "its worktree was removed"
			if stale {
				why = "it was sent the brief of an earlier freeze of the plan; a new session gets the frozen one"
			}
			if _, err := d.Sessions.Kill(context.Background(), rec.ID); err != nil {
				return "", nil, fmt.Errorf("ending session %s (%s): %w", rec.ID, why, err)
			}
			d.say(wp.ID, "session", "%s ended: %s", rec.ID, why)
		}
	}
	// What lies outside the worktree, as it was before the first session
	// of it could touch it; verify compares. A later session of the same
	// worktree keeps that snapshot, so an earlier one's writes are not
	// taken as the starting point. Its git commands run while the steps
	// below read; it is saved only once they all succeeded.
	snapshot := func() (Outside, error) { return nil, nil }
	switch {
	case outsideSum == "" && byGit != nil:
		snapshot = func() (Outside, error) {
			o, err := byGit()
			if err == nil {
				o.addGitFiles(d.Env.Repo.CommonDir, slug)
			}
			return o, err
		}
	case outsideSum == "":
		snapshot = goOutside(func() (Outside, error) { return SnapshotOutside(d.Env.Repo, slug) })
		defer snapshot()
	}
	profile := d.profileFor(st, wp)
	// A profile names adapter and model; a WP's own apply without one.
	req := launch.Request{Profile: profile, DefaultAdapter: d.Config.Dispatch.Adapter}
	if profile == "" {
		req.Adapter, req.Model = wp.Adapter, wp.Model
	}
	l, err := launch.Resolve(d.Config, d.Env.Repo.WorkTree, req)
	if errors.Is(err, launch.ErrNoAdapter) {
		return "", nil, fault.Invalidf("no adapter for %s: set profile or adapter in its [[wp]] entry, or [dispatch] fallback or adapter in agentproto.toml", wp.ID)
	}
	if err != nil {
		return "", nil, err
	}
	if err := l.RequireTrust(d.Config, d.Env.Repo.WorkTree, d.Env.Repo.CommonDir, m.Path, ""); err != nil {
		return "", nil, err
	}
	ls, err := lessons.List(d.Env.Ledger, p.Plan.Tags, len(p.Plan.Tags) == 0, lessons.Recent)
	if err != nil {
		return "", nil, err
	}
	prompt, err := plans.Render(p, d.Env.History, wp.ID, lessons.Texts(ls))
	if err != nil {
		return "", nil, err
	}
	if outsideSum == "" {
		outside, err := snapshot()
		if err != nil {
			return "", nil, err
		}
		if outsideSum, err = SaveOutside(d.Env.Repo.CommonDir, outside); err != nil {
			return "", nil, err
		}
	}
	// The siblings as this session finds them: what it does to them is
	// judged in its own verify.
	siblings, err := d.Env.snapshotSiblings(st, wp.ID, d.wave)
	if err != nil {
		return "", nil, err
	}
	siblingSum, err := SaveOutside(d.Env.Repo.CommonDir, siblings)
	if err != nil {
		return "", nil, err
	}
	start := l.StartArgs()
	start.Dir, start.Worktree, start.Prompt, start.Label = m.Path, slug, prompt, p.Name+"/"+wp.ID
	start.Env, start.Ping = withPerimeter(d.CallerEnv, p, wp), !d.NoPing
	// The prompt sends the agent to its brief, beside the SPEC and the
	// contract in the plan's directory of the main checkout: readable,
	// as nothing else of that checkout is.
	start.Sandbox.Readable = append(start.Sandbox.Readable, p.Dir)
	start.Sandbox.Within = perimeterDirs(d.Config.Sandbox, wp, m.Path)
	disp := Dispatch{Project: p.Name, WP: wp.ID, Worktree: slug, Adapter: l.Adapter, Model: l.Model,
		Profile: l.Profile, Brief: briefSum, Attempt: len(st.Dispatches[wp.ID]) + 1, Base: base, Outside: outsideSum, Siblings: siblingSum}
	describe := l.Describe()
	// What runs on its own goroutine touches only what it is given, the
	// sessions client and the ledger (both safe for concurrent use).
	return "", func() launched {
		rec, err := d.Sessions.Start(context.Background(), *start)
		if err != nil && rec == nil {
			return launched{err: err}
		}
		disp.Session = rec.ID
		id := fmt.Sprintf("pipeline/%s/%s/dispatch/%d", disp.Project, disp.WP, disp.Attempt)
		if rerr := d.Env.record(KindDispatched, id, disp, nil); rerr != nil {
			return launched{id: rec.ID, err: rerr}
		}
		return launched{id: rec.ID, describe: describe, recorded: true, failed: err}
	}, nil
}

// liveRecord loads the record of a session a WP was dispatched to. A
// record saying the session is live is believed only once a daemon
// answers: a daemon that died (killed with -9) left its sessions' records
// as they were, and the one started now marks them failed before it
// listens, so their WPs get new sessions instead of waiting on dead ones.
func (d *Dispatcher) liveRecord(id string) (*sessions.Record, error) {
	store := sessions.OpenView(d.Env.Repo.CommonDir)
	rec, err := store.Load(id)
	if err != nil || sessions.Terminal(rec.State) {
		return rec, err
	}
	if _, err := d.Sessions.Ping(context.Background()); err != nil {
		return nil, err
	}
	return store.Load(id)
}

// provision makes the worktree of a WP that has none through the
// worktree Manager, so it is recorded as worktree new's are: from the
// commit it starts from, with the setup hooks (trusted) committed at the
// frozen base.
func (d *Dispatcher) provision(wp plans.WP, slug string) (*worktree.Meta, string, error) {
	frozen := d.Env.History.Frozen
	base, err := d.startCommit(wp)
	if err != nil {
		return nil, "", err
	}
	mg := &worktree.Manager{Repo: d.Env.Repo, Config: d.Config.Worktree, Out: d.Report.Output(), By: "dispatch",
		Ledger: func() (gitstore.Store, error) { return d.Env.Ledger, nil }}
	m, err := mg.New(worktree.CreateOptions{Slug: slug, BaseName: frozen.Base, BaseCommit: base, HooksAt: frozen.BaseCommit})
	if err != nil {
		return nil, "", err
	}
	return m, base, nil
}

// goOutside starts take on its own goroutine; the function it returns
// waits for its result.
func goOutside(take func() (Outside, error)) func() (Outside, error) {
	done := make(chan struct{})
	var o Outside
	var err error
	go func() {
		defer close(done)
		o, err = take()
	}()
	return func() (Outside, error) { <-done; return o, err }
}

// noSetupHooks says whether worktrees made at commit run and copy nothing
// (no [worktree] hooks in its agentproto.toml); no when that cannot be read.
func noSetupHooks(repo *gitrepo.Repo, commit string) bool {
	h, err := worktree.HooksAt(repo, commit)
	return err == nil && h.Empty()
}

func filepathDir(common string) string {
	if strings.HasSuffix(common, string(os.PathSeparator)+".git") {
		return strings.TrimSuffix(common, string(os.PathSeparator)+".git")
	}
	return common
}
