package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// undoBound is how long undoing a cancelled start may take: the kill, and
// the teardown of the worktree made for it.
const undoBound = 20 * time.Second

// StartSessionUndoable starts a session like StartSession for a caller
// that may go away: the start itself is not cut short by ctx (a start the
// daemon carried out after the caller stopped listening would leave a
// session no one knows of), and when ctx ends meanwhile the start is
// undone: the session is killed and a worktree made for it is taken down
// again — removed when the agent wrote nothing in it, else archived, so
// nothing it wrote is lost. The error then says what was undone.
func (e *Env) StartSessionUndoable(ctx context.Context, o StartOptions) (*sessions.Record, error) {
	rec, err := e.start(context.WithoutCancel(ctx), &o)
	if ctx.Err() == nil {
		return rec, err
	}
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoBound)
	defer cancel()
	var undone []string
	if rec != nil {
		c, cerr := e.Sessions()
		if cerr == nil {
			_, cerr = c.Kill(uctx, rec.ID)
		}
		if cerr != nil {
			return nil, fmt.Errorf("the start was cancelled, and killing the session it started (%s) failed: %v", rec.ID, cerr)
		}
		undone = append(undone, "the session it started ("+rec.ID+") was killed")
	}
	if o.made != "" {
		what, werr := e.unmake(o.made)
		if werr != nil {
			return nil, fmt.Errorf("the start was cancelled, and taking down the worktree it made (%s) failed: %v", o.made, werr)
		}
		undone = append(undone, what)
	}
	if len(undone) == 0 {
		return nil, errors.New("the start was cancelled before it made anything")
	}
	return nil, fmt.Errorf("the start was cancelled; %s", joinAnd(undone))
}

// unmake takes down worktree slug, made for a start that was cancelled:
// removed when clean, archived (its state kept on a salvage ref) when not.
func (e *Env) unmake(slug string) (string, error) {
	mg, err := e.teardown()
	if err != nil {
		return "", err
	}
	m, err := worktree.Load(mg.Repo, slug)
	if err != nil {
		return "", err
	}
	what := "the worktree it made (" + slug + ") was removed"
	if st, err := worktree.State(mg.Repo, m); err == nil && st.Clean {
		if _, err := mg.Remove(slug, worktree.RemoveOptions{}); err != nil {
			return "", err
		}
	} else {
		s, err := mg.Archive(slug)
		if err != nil {
			return "", err
		}
		what = fmt.Sprintf("the worktree it made (%s) held changes: it was archived on %s (git agentproto worktree restore %s)", slug, s.Ref, slug)
	}
	// The branch made with it holds nothing of its own while it is still
	// at its base; left behind, it would refuse the next start of that
	// slug. Compared and deleted in one step, so a commit made on it
	// meanwhile keeps it.
	mg.Repo.DeleteRef("refs/heads/"+m.Branch, m.BaseCommit)
	return what, nil
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 1:
		return parts[0]
	default:
		return parts[0] + ", and " + joinAnd(parts[1:])
	}
}
