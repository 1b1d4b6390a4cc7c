package daemon

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

func prWatchPolicy(id string) *policy {
	return &policy{Policy: sessions.Policy{ID: id, On: "every:1m", Do: []string{sessions.ActPRWatch}, Project: "demo", Dir: "/repo"},
		every: time.Minute, token: "t1", idleDone: map[string]time.Time{}, firedFor: map[string]bool{}}
}

// A pr-watch policy polls at once, never twice at a time, again an
// interval after a poll ended, and ends with its pull request; it keeps
// the daemon up while it polls. Only news and new failures are recorded.
func TestPRWatchSchedule(t *testing.T) {
	e := newPolicyEngine()
	if e.prWatching() {
		t.Fatal("watching with no policy")
	}
	p := prWatchPolicy("p-000000000001")
	e.add(p)
	now := time.Now()
	if due := e.everyDue(now); len(due) != 1 || !e.prWatching() {
		t.Fatalf("a new watch polls at once: %v", due)
	}
	if due := e.everyDue(now.Add(time.Hour)); len(due) != 0 {
		t.Fatalf("a second poll while the first runs: %v", due)
	}
	ok := []sessions.ActionResult{{Action: sessions.ActPRWatch, OK: true, Detail: "pull request #7 open"}}
	if n, rec := e.polled(p, ok, false, false); n != 1 || rec {
		t.Fatalf("a quiet poll: firing %d, recorded %v", n, rec)
	}
	if due := e.everyDue(time.Now().Add(30 * time.Second)); len(due) != 0 {
		t.Fatal("polled again before the interval passed")
	}
	if due := e.everyDue(time.Now().Add(61 * time.Second)); len(due) != 1 {
		t.Fatal("not polled again after the interval")
	}
	bad := []sessions.ActionResult{{Action: sessions.ActPRWatch, Detail: "no GitHub token"}}
	if _, rec := e.polled(p, bad, true, false); !rec {
		t.Fatal("a failure is recorded")
	}
	e.everyDue(time.Now().Add(time.Hour))
	if _, rec := e.polled(p, bad, true, false); rec {
		t.Fatal("the same failure recorded at every poll")
	}
	e.everyDue(time.Now().Add(time.Hour))
	if _, rec := e.polled(p, ok, true, true); !rec || !p.Canceled || e.prWatching() {
		t.Fatalf("a merged pull request: recorded %v, canceled %v", rec, p.Canceled)
	}
	if due := e.everyDue(time.Now().Add(time.Hour)); len(due) != 0 {
		t.Fatal("an ended watch polled")
	}
}

// One watch per plan: attaching again gives the one that polls, with the
// newer token; and a pr-watch policy takes no sessions and no other
// action, and a trigger that is every:DURATION.
func TestPRWatchAttach(t *testing.T) {
	d := bareDaemon()
	p := prWatchPolicy("p-000000000001")
	d.policies.add(p)
	got, err := d.attachPolicy(&sessions.PolicyArgs{On: "every:1m", Do: []string{sessions.ActPRWatch}, Project: "demo", Dir: "/repo", ForgeToken: "t2"})
	if err != nil || got.ID != p.ID || d.policies.tokenOf(p) != "t2" {
		t.Fatalf("attached again: %+v %v, token %q", got, err, p.token)
	}
	for _, c := range []struct {
		args sessions.PolicyArgs
		want string
	}{
		{sessions.PolicyArgs{On: "every:1m", Do: []string{sessions.ActPRWatch, sessions.ActKill}, Project: "demo", Dir: "/repo"}, "runs alone"},
		{sessions.PolicyArgs{Sessions: []string{"s-000000000001"}, On: "every:1m", Do: []string{sessions.ActPRWatch}, Project: "demo", Dir: "/repo"}, "not sessions"},
		{sessions.PolicyArgs{On: "turn-end", Do: []string{sessions.ActPRWatch}, Project: "demo", Dir: "/repo"}, "every:DURATION"},
		{sessions.PolicyArgs{On: "every:10ms", Do: []string{sessions.ActPRWatch}, Project: "demo", Dir: "/repo"}, "a second or more"},
		{sessions.PolicyArgs{On: "every:1m", Do: []string{sessions.ActPRWatch}, Project: "--help", Dir: "/repo"}, "not valid"},
		{sessions.PolicyArgs{On: "every:1m", Do: []string{sessions.ActPRWatch}, Project: "other"}, "work tree"},
	} {
		if _, err := d.attachPolicy(&c.args); fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.args, err, c.want)
		}
	}
}

// The firing's detail says the poll on one line.
func TestPRPollDescribe(t *testing.T) {
	line := `{"schema":"agentproto.pr.watch/v1","project":"demo","pr":{"number":7,"state":"open","head":"0123456789abcdef"},` +
		`"observed":["check \"test\" failed"],"reactions":[{"item":"check:test","outcome":"pushed"}],"pending":[{"escalated":true},{"escalated":false}],"done":false}`
	var pp prPoll
	if err := json.Unmarshal([]byte(line), &pp); err != nil {
		t.Fatal(err)
	}
	want := "pull request #7 open at 0123456789ab; 1 seen; check:test pushed; 2 pending, 1 waiting for the supervisor"
	if got := pp.describe(); got != want {
		t.Fatalf("describe:\n got %s\nwant %s", got, want)
	}
}
