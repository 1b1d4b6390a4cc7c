package reactions

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/gitstore"
)

// Forge is what the watcher asks GitHub; *forge.Client is one.
type Forge interface {
	Pull(number int) (*forge.Pull, error)
	CheckRuns(sha string) ([]forge.CheckRun, error)
	Annotations(id int64) ([]forge.Annotation, error)
	Statuses(sha string) ([]forge.Status, error)
	Reviews(number int) ([]forge.Review, error)
	ReviewComments(number int) ([]forge.ReviewComment, error)
	Reply(number int, id int64, body string) (*forge.ReviewComment, error)
}

// Marker starts what agentproto writes on a pull request, so its own
// replies are never taken for a reviewer's comments.
const Marker = "<!-- agentproto -->"

func reviewItem(id int64) string  { return fmt.Sprintf("review:%d", id) }
func commentItem(id int64) string { return fmt.Sprintf("comment:%d", id) }

// observer records what one poll sees that the ledger does not have yet.
type observer struct {
	l       gitstore.Store
	project string
	repo    string
	number  int
	st      *State
	forge   Forge
	// New lists what was recorded, for the poll's report.
	New []string
}

func (o *observer) record(k interface{ String() string }, id string, fn func() (*gitstore.AppendResult, error), what string) error {
	if o.st.Seen(id) {
		return nil
	}
	if _, err := fn(); err != nil {
		return fmt.Errorf("recording %s: %w", k.String(), err)
	}
	o.st.seen[id] = true
	o.New = append(o.New, what)
	return nil
}

// pull reads the pull request and records its head and state when they
// changed.
func (o *observer) pull() (*PRState, error) {
	p, err := o.forge.Pull(o.number)
	if err != nil {
		return nil, err
	}
	s := PRState{Project: o.project, Repo: o.repo, Number: o.number, Branch: p.Head.Ref, Head: p.Head.SHA, State: p.State, URL: p.URL}
	if p.Merged {
		s.State = "merged"
	}
	id := obsID(o.project, o.number, "state/%s/%s", s.Head, s.State)
	err = o.record(prStateKind, id, func() (*gitstore.AppendResult, error) { return prStateKind.Record(o.l, id, s) },
		fmt.Sprintf("pull request #%d %s at %s", o.number, s.State, short(s.Head)))
	return &s, err
}

// failedConclusions are the check conclusions that ask for a fix.
var failedConclusions = map[string]bool{"failure": true, "timed_out": true, "action_required": true}

// checks records the completed check runs and commit statuses of head.
func (o *observer) checks(head string) error {
	runs, err := o.forge.CheckRuns(head)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if r.Status != "completed" || r.HeadSHA != "" && r.HeadSHA != head {
			continue
		}
		c := Check{Project: o.project, Number: o.number, Head: head, Source: "check_run", ID: r.ID, Name: r.Name, Conclusion: r.Conclusion, URL: r.URL}
		id := obsID(o.project, o.number, "check_run/%d/%s", r.ID, r.Conclusion)
		if o.st.Seen(id) {
			continue
		}
		if failedConclusions[r.Conclusion] {
			if r.Output.AnnotationsCount > 0 {
				as, err := o.forge.Annotations(r.ID)
				if err != nil {
					return err
				}
				for _, a := range as {
					c.Notes = append(c.Notes, Note{Path: a.Path, Line: a.StartLine, Message: bound(strings.TrimSpace(a.Title+" "+a.Message), 1<<10)})
				}
			}
			var paths []string
			for _, n := range c.Notes {
				paths = append(paths, n.Path)
			}
			c.Log = failingPart(strings.TrimSpace(r.Output.Summary+"\n"+r.Output.Text), paths)
		}
		if err := o.recordCheck(id, c); err != nil {
			return err
		}
	}
	statuses, err := o.forge.Statuses(head)
	if err != nil {
		return err
	}
	for _, s := range statuses {
		conclusion := map[string]string{"success": "success", "failure": "failure", "error": "failure"}[s.State]
		if conclusion == "" {
			continue // pending
		}
		c := Check{Project: o.project, Number: o.number, Head: head, Source: "status", ID: s.ID, Name: s.Context, Conclusion: conclusion, URL: s.TargetURL}
		if conclusion == "failure" {
			c.Log = bound(s.Description, maxLog)
		}
		if err := o.recordCheck(obsID(o.project, o.number, "status/%d/%s", s.ID, s.State), c); err != nil {
			return err
		}
	}
	return nil
}

func (o *observer) recordCheck(id string, c Check) error {
	k, verb := passedKind, "passed"
	if failedConclusions[c.Conclusion] {
		k, verb = failedKind, "failed"
	}
	return o.record(k, id, func() (*gitstore.AppendResult, error) { return k.Record(o.l, id, c) },
		fmt.Sprintf("check %q %s on %s", c.Name, verb, short(c.Head)))
}

// discussion records new reviews and review comments; agentproto's own
// replies are left out.
func (o *observer) discussion() error {
	reviews, err := o.forge.Reviews(o.number)
	if err != nil {
		return err
	}
	for _, r := range reviews {
		if r.State == "PENDING" || strings.HasPrefix(r.Body, Marker) {
			continue
		}
		v := Review{Project: o.project, Number: o.number, ID: r.ID, User: r.User.Login, State: r.State, Body: bound(r.Body, maxPrompt), Commit: r.CommitID}
		id := obsID(o.project, o.number, "review/%d", r.ID)
		if err := o.record(reviewKind, id, func() (*gitstore.AppendResult, error) { return reviewKind.Record(o.l, id, v) },
			fmt.Sprintf("review %d by %s: %s", r.ID, v.User, v.State)); err != nil {
			return err
		}
	}
	comments, err := o.forge.ReviewComments(o.number)
	if err != nil {
		return err
	}
	for _, c := range comments {
		if strings.HasPrefix(c.Body, Marker) {
			continue
		}
		v := Comment{Project: o.project, Number: o.number, ID: c.ID, Review: c.ReviewID, InReplyTo: c.InReplyTo, User: c.User.Login,
			Path: c.Path, Line: c.Line, Body: bound(c.Body, maxPrompt), URL: c.URL}
		id := obsID(o.project, o.number, "comment/%d", c.ID)
		if err := o.record(commentKind, id, func() (*gitstore.AppendResult, error) { return commentKind.Record(o.l, id, v) },
			fmt.Sprintf("comment %d by %s on %s", c.ID, v.User, v.Path)); err != nil {
			return err
		}
	}
	return nil
}
