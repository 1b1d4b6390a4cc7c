package daemon

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/companion"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/sessions"
)

// policy is an attached policy with what the daemon keeps of its firings.
type policy struct {
	sessions.Policy

	idle     time.Duration
	idleDone map[string]time.Time // session -> activity time already fired on
	firedFor map[string]bool      // sessions it fired for

	// A pr-watch policy (prwatch.go) polls every so often, with token.
	every   time.Duration
	token   string
	next    time.Time // when it polls again; zero: at once
	polling bool      // a poll runs: the next waits for it
	failed  string    // the last failure recorded, not recorded again
}

// once: a policy that prompts fires once a session unless told to
// repeat; its own prompt would otherwise fire it again, turn after turn.
func (p *policy) once(session string) bool {
	if p.Repeat || !p.firedFor[session] {
		return false
	}
	return slices.ContainsFunc(p.Do, func(a string) bool { return strings.HasPrefix(a, sessions.ActPromptFile+":") })
}

func (d *Daemon) policyDir() string { return filepath.Join(d.repo.CommonDir, "agentproto", "policies") }

func (d *Daemon) savePolicy(p *policy) {
	os.MkdirAll(d.policyDir(), 0o755)
	snap := d.policies.snapshot(p)
	b, _ := json.MarshalIndent(&snap, "", "  ")
	tmp := filepath.Join(d.policyDir(), p.ID+".json.tmp")
	if os.WriteFile(tmp, b, 0o644) == nil {
		os.Rename(tmp, filepath.Join(d.policyDir(), p.ID+".json"))
	}
}

func (d *Daemon) attachPolicy(a *sessions.PolicyArgs) (*sessions.Policy, error) {
	if a != nil && slices.Contains(a.Do, sessions.ActPRWatch) {
		return d.attachPRWatch(a)
	}
	if a == nil || len(a.Sessions) == 0 {
		return nil, fault.Invalidf("a policy needs at least one session")
	}
	idle, err := sessions.ParseTrigger(a.On)
	if err != nil {
		return nil, err
	}
	if _, err := sessions.ParseActions(strings.Join(a.Do, ",")); err != nil {
		return nil, err
	}
	for _, id := range a.Sessions {
		if _, err := d.get(id); err != nil {
			return nil, err
		}
	}
	for _, act := range a.Do {
		if (act == sessions.ActVerify || act == sessions.ActCheckpoint || act == sessions.ActDispatch) && a.Project == "" {
			return nil, fault.Invalidf("%s needs the plan: --plan PROJECT (and sessions labelled PROJECT/WPn)", act)
		}
		if act == sessions.ActNotify && a.Notify == "" {
			return nil, fault.Invalidf("notify needs [policies] notify in agentproto.toml")
		}
	}
	if err := a.Dispatch.Validate(); err != nil {
		return nil, err
	}
	p := &policy{Policy: sessions.Policy{ID: "p-" + newID()[2:], Sessions: a.Sessions, On: a.On, Do: a.Do, Project: a.Project, WP: a.WP,
		Dir: a.Dir, Notify: a.Notify, Dispatch: a.Dispatch, Created: time.Now().UTC(), Repeat: a.Repeat}, idle: idle,
		idleDone: map[string]time.Time{}, firedFor: map[string]bool{}}
	attached := p.Policy // the answer, before any firing changes p
	d.policies.add(p)
	// A turn that ended before the policy arrived counts: attaching races
	// with fast agents. Read after the policy is in: a session settling
	// meanwhile is seen here or fires it on its transition.
	var settled []string
	if p.On == "turn-end" {
		settled = d.settledOf(p.Sessions)
	}
	d.savePolicy(p)
	for _, id := range settled {
		d.actions.goFire(func() { d.fire(p, id, "turn-end") })
	}
	return &attached, nil
}

// onTransition fires turn-end policies of a session that just settled.
func (d *Daemon) onTransition(id, state string) {
	if state != sessions.StateSettled {
		return
	}
	if d.isPinging(id) {
		return
	}
	fire := d.policies.turnEnd(id)
	for _, p := range fire {
		d.actions.goFire(func() { d.fire(p, id, "turn-end") })
	}
}

// idleLoop fires idle policies of sessions quiet for long enough, and the
// pr-watch policies whose interval has passed.
func (d *Daemon) idleLoop() {
	for {
		time.Sleep(500 * time.Millisecond)
		jobs := d.policies.idleDue(d.activity())
		for _, j := range jobs {
			d.actions.goFire(func() { d.fire(j.p, j.id, j.p.On) })
		}
		for _, p := range d.policies.everyDue(time.Now()) {
			d.actions.goFire(func() { d.firePRWatch(p) })
		}
	}
}

// fire runs a policy's actions for one session and records the firing.
func (d *Daemon) fire(p *policy, session, trigger string) {
	var results []sessions.ActionResult
	for _, act := range p.Do {
		r := d.runAction(p, session, act)
		results = append(results, r)
		if !r.OK {
			break
		}
	}
	n := d.policies.fired(p, results)
	d.savePolicy(p)
	recordPolicy(d, p, session, trigger, results, n)
}

// recordPolicy records the nth firing of p, for session (a pr-watch
// policy: for its plan).
func recordPolicy(d *Daemon, p *policy, session, trigger string, results []sessions.ActionResult, n int) {
	f := PolicyFired{Policy: p.ID, Session: session, Trigger: trigger, Actions: results}
	if p.every > 0 {
		f.Session, f.Project = "", p.Project
	}
	record(d, policyKind, fmt.Sprintf("policy/%s/%s/%d", p.ID, session, n), f)
}

func (d *Daemon) runAction(p *policy, session, act string) sessions.ActionResult {
	r := sessions.ActionResult{Session: session, Action: act}
	name, arg, _ := strings.Cut(act, ":")
	switch name {
	case sessions.ActKill:
		if _, err := d.kill(session, "killed by policy "+p.ID); err != nil {
			r.Detail = err.Error()
			return r
		}
		r.OK = true
	case sessions.ActPromptFile:
		text, err := sessions.ReadPromptFile(arg)
		if err == nil {
			// A prompt goes to an agent: no secret of ours in it.
			err = secrets.Refuse("the prompt file "+arg, text)
		}
		if err == nil {
			err = d.prompt(session, text, false)
		}
		r.OK, r.Detail = err == nil, errText(err)
	case sessions.ActNotify:
		cmd := exec.Command("sh", "-c", p.Notify)
		cmd.Dir = p.Dir
		cmd.Env = append(cleanEnv(), "AGENTPROTO_SESSION="+session, "AGENTPROTO_EVENT="+p.On, "AGENTPROTO_POLICY="+p.ID)
		out, err := d.actions.output(cmd)
		r.OK, r.Detail = err == nil, strings.TrimSpace(string(out)+" "+errText(err))
	case sessions.ActDispatch:
		r.OK, r.Detail = d.runDispatch(p)
	case sessions.ActVerify, sessions.ActCheckpoint:
		wp := p.WP[session]
		if wp == "" {
			r.Detail = "no work package known for this session"
			return r
		}
		exe, err := companion.Find(companion.CLI) // the CLI's verbs are git-agentproto's
		if err != nil {
			r.Detail = err.Error()
			return r
		}
		cmd := exec.Command(exe, name, p.Project, wp)
		cmd.Dir = p.Dir
		cmd.Env = cleanEnv()
		out, err := d.actions.output(cmd)
		r.OK = err == nil
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		r.Detail = lines[0]
	}
	return r
}

// cleanEnv is the daemon's environment without the GIT_DIR it was started
// with: actions run in the user's work tree.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GIT_DIR" || k == "GIT_WORK_TREE" || k == "GIT_INDEX_FILE" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// waitPolicies blocks until each policy fired at least once (or was
// canceled), or the time passed; it returns the policies still pending.
func (d *Daemon) waitPolicies(ids []string, timeout string) ([]string, error) {
	dur, err := timeoutArg("--timeout", timeout)
	if err != nil {
		return nil, err
	}
	return d.policies.wait(ids, dur)
}

// listPolicies copies every policy of this daemon.
func (d *Daemon) listPolicies() []*sessions.Policy { return d.policies.list() }

// cancelPolicy stops a policy from firing again.
func (d *Daemon) cancelPolicy(id string) error {
	p := d.policies.cancel(id)
	if p == nil {
		return fault.Invalidf("no policy %s", id)
	}
	d.savePolicy(p)
	return nil
}
