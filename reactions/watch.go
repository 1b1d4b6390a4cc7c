package reactions

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
)

// Agent gives a work package's agent its next turn.
type Agent interface {
	// Turn sends prompt to wp's session as its next turn — a new session
	// in its worktree when the old one ended — and waits for the turn to
	// end. It returns the session.
	Turn(ctx context.Context, wp, prompt string) (string, error)
}

// Watcher watches the pull request of one plan and reacts.
type Watcher struct {
	Env    *pipeline.Env
	Config config.Config
	Forge  Forge
	Agent  Agent
	// Repo names the forge repository (host/owner/name) in events.
	Repo string
	// Now is the clock (tests move it).
	Now func() time.Time
	// Log is told each step of a reaction as it happens.
	Log io.Writer
	// Notify runs the [policies] notify command for a notice (nil: the
	// notice is the ledger event and the log line alone).
	Notify func(ctx context.Context, n Notice) error
}

// Report is what one poll saw and did: what plan status and the MCP
// packet show, and what pr watch --json prints.
type Report struct {
	Project   string     `json:"project"`
	PR        *PRState   `json:"pr"`
	Observed  []string   `json:"observed"`
	Reactions []Reaction `json:"reactions"`
	Pending   []Pending  `json:"pending"`
	// Done: the pull request is closed or merged; there is nothing more
	// to watch.
	Done bool `json:"done"`
	// Note says why there was nothing to poll (no pull request yet).
	Note string `json:"note,omitempty"`
}

func (w *Watcher) now() time.Time {
	if w.Now == nil {
		return time.Now()
	}
	return w.Now()
}

func (w *Watcher) say(format string, args ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, format+"\n", args...)
	}
}

// Poll reads the pull request once, records what is new, and reacts to
// what asks for it: at most one turn sent per poll, so the next poll
// sees the head that turn pushed.
func (w *Watcher) Poll(ctx context.Context) (*Report, error) {
	e := w.Env
	pst, err := pipeline.ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	if pst.PR == nil || pst.PR.Number == 0 {
		return nil, fault.Refusedf("plan %s has no pull request to watch: git agentproto pr open %s", e.Project.Name, e.Project.Name)
	}
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	o := &observer{l: e.Ledger, project: e.Project.Name, repo: w.Repo, number: pst.PR.Number, st: st, forge: w.Forge, New: []string{}}
	pr, err := o.pull()
	if err != nil {
		return nil, err
	}
	rep := &Report{Project: e.Project.Name, PR: pr, Reactions: []Reaction{}, Pending: []Pending{}}
	if pr.State != "open" {
		rep.Observed, rep.Done = o.New, true
		return rep, nil
	}
	if err := o.checks(pr.Head); err != nil {
		return nil, err
	}
	if err := o.discussion(); err != nil {
		return nil, err
	}
	rep.Observed = o.New
	if st, err = ReadState(e.Ledger, e.Project.Name); err != nil {
		return nil, err
	}
	sent := false
	for _, it := range st.items(*pr) {
		r, err := w.react(ctx, st, it, *pr, &sent)
		if err != nil {
			return rep, err
		}
		if r != nil {
			rep.Reactions = append(rep.Reactions, *r)
		}
	}
	if st, err = ReadState(e.Ledger, e.Project.Name); err != nil {
		return nil, err
	}
	rep.Pending = st.pending(e.Project, *pr, w.Config.Reactions)
	return rep, nil
}

// react decides what item gets and does it; nil when nothing is done now.
func (w *Watcher) react(ctx context.Context, st *State, it Item, pr PRState, sent *bool) (*Reaction, error) {
	if _, ok := st.Escalated(it.Key); ok {
		return nil, nil // waits for the supervisor
	}
	act := st.reaction(w.Config.Reactions, it)
	base := Reaction{Project: pr.Project, Number: pr.Number, Item: it.Key, Trigger: it.Trigger, Action: act.Action, Head: pr.Head}
	switch act.Action {
	case config.Ignore:
		return nil, nil
	case config.Notify:
		if _, ok := st.Last(it.Key); ok {
			return nil, nil
		}
		return w.notify(ctx, st, base, it, pr)
	case config.Escalate:
		return w.escalate(ctx, st, base, "[reactions."+it.Trigger+"] action = \"escalate\"")
	}
	r := st.route(it, w.Env.Project)
	base.WPs = r.WPs()
	if r.Escalate != "" {
		return w.escalate(ctx, st, base, r.Escalate)
	}
	if last, ok := st.Last(it.Key); ok && last.Outcome == Pushed && last.Head == pr.Head {
		return nil, nil // a fix is pushed; GitHub has not shown its head yet
	}
	attempts := st.Attempts(it.Key)
	if attempts >= act.Retries {
		return w.escalate(ctx, st, base, fmt.Sprintf("the retries ran out: %d turns of %s did not fix it", attempts, strings.Join(base.WPs, ", ")))
	}
	if first, ok := st.first[it.Key]; ok && act.EscalateAfter.Duration > 0 && w.now().Sub(first) > act.EscalateAfter.Duration {
		return w.escalate(ctx, st, base, fmt.Sprintf("still open %s after it was first seen (escalate-after)", act.EscalateAfter))
	}
	if *sent {
		return nil, nil // one turn per poll
	}
	*sent = true
	return w.send(ctx, st.reset[it.Key], it, r, base, attempts+1)
}

// escalate puts the item on the supervisor's list, with what was tried,
// and tells them through [policies] notify: a watch the daemon runs has
// no terminal to say it on.
func (w *Watcher) escalate(ctx context.Context, st *State, r Reaction, why string) (*Reaction, error) {
	r.Action, r.Outcome, r.Reason, r.Tried = config.Escalate, Escalated, why, st.Tried(r.Item)
	w.say("escalated %s: %s", r.Item, why)
	if err := w.recordReaction(st.reset[r.Item], r, "escalated"); err != nil {
		return &r, err
	}
	if w.Notify != nil {
		n := Notice{Event: EventEscalated, Project: r.Project, Number: r.Number, Item: r.Item, Trigger: r.Trigger,
			Message: fmt.Sprintf("%s on pull request #%d waits for the supervisor: %s", r.Item, r.Number, why)}
		if err := w.Notify(ctx, n); err != nil {
			// The escalation stands and is listed; the notice is extra.
			w.say("notify: %v", err)
		}
	}
	return &r, nil
}

// notify tells of item once: the reaction is recorded as notified, or as
// failed at notify with the command's error (not retried: a broken
// command would otherwise run at every poll).
func (w *Watcher) notify(ctx context.Context, st *State, r Reaction, it Item, pr PRState) (*Reaction, error) {
	r.Outcome, r.Reason = Notified, notice(it, pr)
	w.say("notify: %s", r.Reason)
	if w.Notify != nil {
		n := Notice{Event: it.Trigger, Project: pr.Project, Number: pr.Number, Item: it.Key, Trigger: it.Trigger, URL: pr.URL, Message: r.Reason}
		if err := w.Notify(ctx, n); err != nil {
			r.Outcome, r.Step, r.Reason = Failed, "notify", bound(err.Error(), 1<<10)
			w.say("notify: %v", err)
		}
	}
	return &r, w.recordReaction(st.reset[it.Key], r, "notified")
}

func notice(it Item, pr PRState) string {
	if it.Trigger == config.ApprovedAndGreen {
		return fmt.Sprintf("pull request #%d is approved and every check passed on %s (agentproto never merges: a person does)", pr.Number, short(pr.Head))
	}
	return fmt.Sprintf("%s on pull request #%d (%s)", it.Key, pr.Number, it.Trigger)
}

// recordReaction records r. Its id names the item, the incident (a check
// that passed and failed again is a new one) and the attempt, so the same
// reaction recorded twice is one event.
func (w *Watcher) recordReaction(incident int, r Reaction, what string) error {
	id := obsID(r.Project, r.Number, "reaction/%s/%d/%d/%s", r.Item, incident, r.Attempt, what)
	if _, err := reactionKind.Record(w.Env.Ledger, id, r); err != nil {
		return fmt.Errorf("recording the reaction to %s: %w", r.Item, err)
	}
	return nil
}
