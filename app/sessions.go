package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/isolation"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// StartOptions are the inputs of StartSession; the front end has checked
// that exactly one of Profile and Adapter, and of Worktree and Dir, is
// given and that Prompt is not blank.
type StartOptions struct {
	Profile, Adapter, Model string
	// UserOptions are adapter options of the caller's own (--option K=V);
	// they win over the configured ones.
	UserOptions map[string]string
	// Worktree runs the session in this agentproto worktree, made from
	// Base (as worktree new does) when it does not exist.
	Worktree, Base string
	// Dir runs it in this directory instead.
	Dir string
	// Confined takes a relative Dir from the work tree and refuses one
	// outside the repository and its worktrees: an MCP client is an LLM,
	// and /etc or $HOME is no place to start an agent.
	Confined bool
	Prompt   string
	Label    string
	NoPing   bool
	// By names the caller in the record of a worktree made here.
	By string

	made string // the worktree this start made, to undo
}

// StartSession starts a session in a worktree or directory under the
// isolation policy. Everything that can refuse (profile, adapter, trust)
// is checked before a worktree is made, so a refused start leaves nothing
// behind. A session that failed while starting still has a record, which
// comes back with the error.
func (e *Env) StartSession(ctx context.Context, o StartOptions) (*sessions.Record, error) {
	return e.start(ctx, &o)
}

func (e *Env) start(ctx context.Context, o *StartOptions) (*sessions.Record, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	// The profile's model switch, error log and wedge bound come with the
	// resolver, and a bad adapter name is refused before a worktree is made.
	l, err := launch.Resolve(cfg, repo.WorkTree, launch.Request{Profile: o.Profile, Adapter: o.Adapter, Model: o.Model, User: o.UserOptions, Env: os.Environ()})
	if err != nil {
		return nil, err
	}
	dir, err := e.sessionDir(cfg, repo, l, o)
	if err != nil {
		return nil, err
	}
	trustDir := "" // a worktree holds the repository's files
	if o.Worktree == "" && dir != repo.WorkTree {
		trustDir = o.Dir
		if o.Confined {
			trustDir = dir
		}
	}
	if err := l.RequireTrust(cfg, repo.WorkTree, repo.CommonDir, dir, trustDir); err != nil {
		return nil, err
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	args := l.StartArgs()
	args.Dir, args.Worktree, args.Prompt, args.Label, args.Env, args.Ping = dir, o.Worktree, o.Prompt, o.Label, os.Environ(), !o.NoPing
	return c.Start(ctx, *args)
}

// sessionDir is where the session runs: the parent session's worktree
// when started from one, o.Worktree (made when missing) or o.Dir.
func (e *Env) sessionDir(cfg config.Config, repo *gitrepo.Repo, l *launch.Resolved, o *StartOptions) (string, error) {
	mode, err := cfg.Worktree.IsolationMode(os.Getenv)
	if err != nil {
		return "", err
	}
	parent, err := isolation.Parent(repo, os.Getenv)
	if err != nil {
		return "", err
	}
	if slug, inherited := isolation.Slug(parent, o.Worktree); inherited {
		fmt.Fprintf(e.log(), "started from session %s: runs in its worktree %s, not a second one\n", parent.ID, slug)
		o.Worktree, o.Base = slug, ""
	}
	if o.Worktree == "" {
		dir, err := e.startDir(repo, o)
		if err != nil {
			return "", err
		}
		return dir, isolation.CheckDir(repo, mode, dir)
	}
	if err := worktree.ValidateSlug(o.Worktree); err != nil {
		return "", err
	}
	_, lerr := worktree.Load(repo, o.Worktree)
	if lerr != nil && o.Confined && fault.KindOf(lerr) != fault.Invalid {
		return "", lerr
	}
	if err := isolation.CheckCreate(mode, o.Worktree, lerr == nil); err != nil {
		return "", err
	}
	if lerr != nil {
		// Made from the repository's files, which trust was given over:
		// checked against them first, a refused start makes no worktree
		// and runs no setup hook.
		if err := l.RequireTrust(cfg, repo.WorkTree, repo.CommonDir, repo.WorkTree, ""); err != nil {
			return "", err
		}
	}
	mg := e.manager(repo, cfg, o.By)
	m, created, err := mg.Ensure(worktree.CreateOptions{Slug: o.Worktree, Base: o.Base})
	if err != nil {
		return "", err
	}
	if created {
		o.made = m.Slug
	}
	return absDir(m.Path, "--dir "+m.Path)
}

// startDir is o.Dir made absolute: from the working directory, or, when
// confined, from the work tree and only inside the repository.
func (e *Env) startDir(repo *gitrepo.Repo, o *StartOptions) (string, error) {
	if !o.Confined {
		return absDir(o.Dir, "--dir "+o.Dir)
	}
	abs := o.Dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(repo.WorkTree, abs)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fault.Invalidf("dir %s is not a directory", o.Dir)
	}
	return abs, CheckInside(repo, abs)
}

func absDir(dir, what string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", fault.Invalidf("%s is not a directory", what)
	}
	return abs, nil
}

// CheckInside refuses a directory outside the repository's work tree and
// its agentproto worktrees.
func CheckInside(repo *gitrepo.Repo, dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fault.Invalidf("dir %s: %v", dir, err)
	}
	roots := []string{repo.WorkTree}
	if wts, err := worktree.All(repo); err == nil {
		for _, m := range wts {
			roots = append(roots, m.Path)
		}
	}
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil && (real == rr || strings.HasPrefix(real, rr+string(filepath.Separator))) {
			return nil
		}
	}
	return fault.Refusedf("dir %s is outside the repository %s and its worktrees: give a directory inside them, or a worktree", dir, repo.WorkTree)
}

// ListSessions lists the sessions' records; cleaned ones only with all.
// Without a daemon nothing is live: a record it left running is an orphan
// until the next daemon recovers it.
func (e *Env) ListSessions(ctx context.Context, all bool) ([]*sessions.Record, error) {
	st, err := e.store()
	if err != nil {
		return nil, err
	}
	recs, err := st.All()
	if err != nil {
		return nil, err
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	daemon, err := c.Probe(ctx)
	if err != nil {
		// The records are on disk and can be listed; whether they are
		// live cannot be asked.
		fmt.Fprintln(e.log(), "warning:", err)
	}
	rows := []*sessions.Record{}
	for _, r := range recs {
		if !daemon && err == nil && !sessions.Terminal(r.State) {
			r.Failure = "the sessions daemon is not running (it was " + r.State + "); the next sessions command recovers it"
			r.State = "orphaned"
		}
		if all || r.State != sessions.StateCleaned {
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// Records loads the named sessions; a bad or unknown id is exit 2.
func (e *Env) Records(ctx context.Context, ids []string) ([]*sessions.Record, error) {
	if len(ids) == 0 {
		return nil, fault.Invalidf("ids: name at least one session")
	}
	st, err := e.store()
	if err != nil {
		return nil, err
	}
	out := []*sessions.Record{}
	for _, id := range ids {
		if err := sessions.ValidateID(id); err != nil {
			return nil, err
		}
		r, err := st.Load(id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// SessionOutput is the record of session id and all it has written so
// far.
func (e *Env) SessionOutput(ctx context.Context, id string) (*sessions.Record, []byte, error) {
	if err := sessions.ValidateID(id); err != nil {
		return nil, nil, err
	}
	st, err := e.store()
	if err != nil {
		return nil, nil, err
	}
	rec, err := st.Load(id)
	if err != nil {
		return nil, nil, err
	}
	b, err := os.ReadFile(st.OutputPath(rec.ID))
	return rec, b, err
}

// escapes matches terminal control sequences (CSI, OSC) and stray
// controls.
var escapes = lazyre.New(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]`)

// StripEscapes removes terminal escapes and control characters from
// output, keeping newlines and tabs: what `sessions output --clean` shows.
func StripEscapes(b []byte) []byte { return escapes.ReplaceAll(b, nil) }
