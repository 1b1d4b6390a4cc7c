package daemon

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/internal/companion"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
)

// attachPRWatch attaches a policy that polls a plan's pull request every
// so often and reacts to it, with nobody at a terminal. Each firing runs
// `git-agentproto pr watch PROJECT --once --json`: the same poll, the same
// ETag cache on disk and the same reactions as the foreground loop, which
// go through the pipeline and start sessions in this daemon. It fires
// again an interval after the last poll ended, as the foreground loop
// waits, and ends itself once the pull request is closed or merged. One
// per plan: attaching again returns the one that polls, with the token
// given.
func (d *Daemon) attachPRWatch(a *sessions.PolicyArgs) (*sessions.Policy, error) {
	if len(a.Do) != 1 {
		return nil, fault.Invalidf("%s runs alone: it is the whole poll", sessions.ActPRWatch)
	}
	if len(a.Sessions) > 0 {
		return nil, fault.Invalidf("%s watches a plan's pull request, not sessions: git agentproto pr watch PROJECT --daemon", sessions.ActPRWatch)
	}
	every, err := sessions.ParseEvery(a.On)
	if err != nil {
		return nil, err
	}
	// The plan's name becomes an argument of our own binary.
	if err := plans.ValidateProject(a.Project); err != nil {
		return nil, err
	}
	if a.Dir == "" {
		return nil, fault.Invalidf("a %s policy needs the work tree it polls from", sessions.ActPRWatch)
	}
	if p := d.policies.prWatchOf(a.Dir, a.Project, a.ForgeToken); p != nil {
		snap := d.policies.snapshot(p)
		return &snap, nil
	}
	p := &policy{Policy: sessions.Policy{ID: "p-" + newID()[2:], On: a.On, Do: a.Do, Project: a.Project, Dir: a.Dir, Sessions: []string{},
		Created: time.Now().UTC()}, every: every, token: a.ForgeToken, idleDone: map[string]time.Time{}, firedFor: map[string]bool{}}
	attached := p.Policy
	d.policies.add(p) // due at once: the next tick of idleLoop polls
	d.savePolicy(p)
	d.logf("policy %s watches the pull request of %s every %s", p.ID, p.Project, every)
	return &attached, nil
}

// firePRWatch runs one poll and records it. A quiet poll — nothing new,
// nothing done, or the same failure as the last one — is not a ledger
// event: an hour of polling would otherwise write sixty, synced to every
// clone. The pull request's own events are pr watch's.
func (d *Daemon) firePRWatch(p *policy) {
	r, eventful, done := d.pollPR(p)
	results := []sessions.ActionResult{r}
	n, record := d.policies.polled(p, results, eventful, done)
	d.savePolicy(p)
	if record {
		recordPolicy(d, p, p.Project, p.On, results, n)
	}
	if done {
		d.logf("policy %s: the pull request of %s is %s; it watches no more", p.ID, p.Project, r.Detail)
	}
}

// prPoll is what pr watch --json prints for one poll: the parts the
// firing's detail says.
type prPoll struct {
	PR *struct {
		Number int    `json:"number"`
		State  string `json:"state"`
		Head   string `json:"head"`
	} `json:"pr"`
	Observed  []string `json:"observed"`
	Reactions []struct {
		Item    string `json:"item"`
		Outcome string `json:"outcome"`
	} `json:"reactions"`
	Pending []struct {
		Escalated bool `json:"escalated"`
	} `json:"pending"`
	Done bool   `json:"done"`
	Note string `json:"note"`
}

// pollPR runs the poll; it says what it saw and did, whether that is
// news, and whether the pull request is closed or merged.
func (d *Daemon) pollPR(p *policy) (r sessions.ActionResult, eventful, done bool) {
	r = sessions.ActionResult{Action: sessions.ActPRWatch}
	exe, err := companion.Find(companion.CLI) // the CLI's verbs are git-agentproto's
	if err != nil {
		r.Detail = err.Error()
		return r, true, false
	}
	cmd := exec.Command(exe, "pr", "watch", p.Project, "--once", "--json")
	cmd.Dir = p.Dir
	cmd.Env = cleanEnv()
	if tok := d.policies.tokenOf(p); tok != "" {
		cmd.Env = append(cmd.Env, "GH_TOKEN="+tok)
	}
	// As a dispatch: the poll is the daemon's, and stops when it does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	runtime.LockOSThread()
	out, err := d.actions.output(cmd)
	runtime.UnlockOSThread()
	var poll *prPoll
	var last string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		line = strings.TrimSpace(line)
		var pp prPoll
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &pp) == nil {
			poll = &pp
		} else if line != "" {
			last = line
		}
	}
	if err != nil || poll == nil {
		r.Detail = last
		if r.Detail == "" {
			r.Detail = errText(err)
		}
		return r, true, false
	}
	r.OK, r.Detail = true, poll.describe()
	return r, len(poll.Observed) > 0 || len(poll.Reactions) > 0 || poll.Done, poll.Done
}

// describe says a poll on one line.
func (pp *prPoll) describe() string {
	if pp.PR == nil {
		return pp.Note
	}
	head := pp.PR.Head
	if len(head) > 12 {
		head = head[:12]
	}
	s := fmt.Sprintf("pull request #%d %s at %s", pp.PR.Number, pp.PR.State, head)
	if pp.Note != "" {
		s += ": " + pp.Note
	}
	if len(pp.Observed) > 0 {
		s += fmt.Sprintf("; %d seen", len(pp.Observed))
	}
	for _, x := range pp.Reactions {
		s += "; " + x.Item + " " + x.Outcome
	}
	waiting := 0
	for _, x := range pp.Pending {
		if x.Escalated {
			waiting++
		}
	}
	if len(pp.Pending) > 0 {
		s += fmt.Sprintf("; %d pending, %d waiting for the supervisor", len(pp.Pending), waiting)
	}
	return s
}
