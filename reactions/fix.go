package reactions

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
)

// send gives the item's owners a turn and closes the loop through the
// pipeline; the attempt is recorded before the turn, so a watcher that
// dies in it still counts it against the retries.
func (w *Watcher) send(ctx context.Context, incident int, it Item, r Route, base Reaction, attempt int) (*Reaction, error) {
	base.Attempt = attempt
	sent := base
	sent.Outcome = Sent
	if err := w.recordReaction(incident, sent, Sent); err != nil {
		return nil, err
	}
	w.say("%s: turn %d of %s", it.Key, attempt, strings.Join(base.WPs, ", "))
	res := base
	commit, step, err := w.closeLoop(ctx, it, r, base)
	if err != nil {
		res.Outcome, res.Step, res.Reason = Failed, step, bound(err.Error(), 1<<10)
		w.say("%s: stopped at %s: %v", it.Key, step, err)
		if fault.KindOf(err) == fault.Refused && step == "push" {
			// A branch someone else moved is a person's call, not a retry.
			if rerr := w.recordReaction(incident, res, Failed); rerr != nil {
				return nil, rerr
			}
			st, rerr := ReadState(w.Env.Ledger, w.Env.Project.Name)
			if rerr != nil {
				return nil, rerr
			}
			return w.escalate(ctx, st, base, err.Error())
		}
	} else {
		res.Outcome, res.Commit = Pushed, commit
		w.say("%s: pushed %s", it.Key, short(commit))
	}
	return &res, w.recordReaction(incident, res, res.Outcome)
}

// closeLoop is the owners' turn, then verify, checkpoint, consolidate and
// review — the pipeline, never around it — then the push and, for a
// comment, the reply in its thread. It returns the commit pushed, or the
// step that stopped it.
func (w *Watcher) closeLoop(ctx context.Context, it Item, r Route, base Reaction) (string, string, error) {
	e, cfg := w.Env, w.Config
	gate := cfg.Dispatch.GateTimeout.Duration
	for _, wp := range base.WPs {
		if _, err := w.Agent.Turn(ctx, wp, it.prompt(e.Project.Name, base.Number, wp, r)); err != nil {
			return "", "turn " + wp, err
		}
	}
	for _, wp := range base.WPs {
		v, err := e.Verify(wp, gate)
		if err != nil {
			return "", "verify " + wp, err
		}
		w.say("%s: verify %s: %s", it.Key, wp, v.Verdict)
		if v.Verdict != pipeline.Pass {
			return "", "verify " + wp, fmt.Errorf("%s's verification is %s: %s", wp, v.Verdict, strings.Join(v.Findings, "; "))
		}
		if _, err := e.Checkpoint(wp, fmt.Sprintf("%s: answer %s on #%d", wp, it.Key, base.Number)); err != nil {
			return "", "checkpoint " + wp, err
		}
	}
	c, err := e.Consolidate(cfg.Worktree.Root, gate)
	if err != nil {
		return "", "consolidate", err
	}
	if c.Head == base.Head {
		return "", "consolidate", fmt.Errorf("the turn changed nothing: the integration branch is still at the pull request's head %s", short(base.Head))
	}
	rev, err := e.Review(gate, cfg.Review.MutationBudget.Duration)
	if err != nil {
		return "", "review", err
	}
	if err := e.RecordReview(rev, nil); err != nil {
		return "", "review", err
	}
	w.say("%s: consolidated %s, review: %d findings", it.Key, short(c.Head), len(rev.Findings))
	if !rev.OK {
		return "", "review", fmt.Errorf("the review has %d findings", len(rev.Findings))
	}
	if err := w.push(c.Branch, c.Head, base.Head); err != nil {
		return "", "push", err
	}
	if it.Comment != nil {
		body := fmt.Sprintf("%s\n%s changed this in %s (verified, consolidated and reviewed by agentproto, which never merges).", Marker, strings.Join(base.WPs, ", "), c.Head)
		if _, err := w.Forge.Reply(base.Number, it.Comment.ID, body); err != nil {
			return c.Head, "reply", err
		}
	}
	return c.Head, "", nil
}

// push sends head to the PR branch on the [pr] remote as a fast-forward:
// the remote branch must be at a commit head descends from, one this
// clone made. A commit there that it does not have, or that head does
// not contain, is someone else's: nothing is pushed (never forced).
func (w *Watcher) push(branch, head, prHead string) error {
	repo, remote := w.Env.Repo, w.Config.PR.Remote
	refs, err := repo.RemoteRefs(remote, "refs/heads/"+branch)
	if err != nil {
		return fmt.Errorf("reading %s on %s: %w", branch, remote, err)
	}
	at := ""
	if len(refs) > 0 {
		at = refs[0].ID
	}
	if at != "" && at != head {
		if !repo.HasCommit(at) || !repo.IsAncestor(at, head) {
			return fault.Refusedf("%s on %s is at %s, a commit agentproto did not make (the pull request's head was %s); nothing was pushed and nothing is forced: bring that change into the work package by hand",
				branch, remote, short(at), short(prHead))
		}
	}
	if _, err := repo.Git("push", remote, "refs/heads/"+branch+":refs/heads/"+branch); err != nil {
		return fmt.Errorf("pushing %s to %s: %w", branch, remote, err)
	}
	return nil
}
