package sessionscmd

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
	"github.com/agentproto/agentproto/sessions"
)

func testFactory() *cmdutil.Factory {
	io, _, _, _ := cmdutil.Test()
	return cmdutil.New(io, "test")
}

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.Execute()
}

// noDaemon fails the test when a verb asks for the daemon: bad input is
// refused before anything is sent.
func noDaemon(t *testing.T) func() (*sessions.Client, error) {
	return func() (*sessions.Client, error) {
		t.Helper()
		t.Fatal("the daemon was asked for")
		return nil, errors.New("unreachable")
	}
}

func TestStartFlags(t *testing.T) {
	var got *StartOptions
	cmd := newCmdStart(testFactory(), func(o *StartOptions) error { got = o; return nil })
	if err := run(cmd, "--profile", "cheap", "--dir", "w", "--prompt", "go", "--option", "a=1", "--option", "b=2", "--no-ping", "--label", "P/WP1"); err != nil {
		t.Fatal(err)
	}
	if got.Profile != "cheap" || got.Dir != "w" || got.Prompt != "go" || !got.NoPing || got.Label != "P/WP1" ||
		got.Options["a"] != "1" || got.Options["b"] != "2" || got.Adapter != "" || got.JSON {
		t.Fatalf("options %+v", got)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--profile", "p", "--adapter", "exec", "--dir", "w", "--prompt", "x"}, "do not give --adapter too"},
		{[]string{"--dir", "w", "--prompt", "x"}, "--adapter or --profile is required"},
	} {
		called := false
		cmd := newCmdStart(testFactory(), func(o *StartOptions) error { called = true; return nil })
		err := run(cmd, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.err) || fault.KindOf(err) != fault.Invalid || called {
			t.Errorf("%v: err %v (called %v), want %q", c.args, err, called, c.err)
		}
	}
}

func TestWaitFlagsAndRefusals(t *testing.T) {
	var got *WaitOptions
	cmd := newCmdWait(testFactory(), func(o *WaitOptions) error { got = o; return nil })
	if err := run(cmd, "s-0123456789ab", "s-ba9876543210"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.IDs, " ") != "s-0123456789ab s-ba9876543210" || got.Until != sessions.UntilTurnEnd || got.Timeout != "40m" {
		t.Fatalf("options %+v", got)
	}
	for _, o := range []*WaitOptions{
		{IDs: []string{"../etc"}, Timeout: "1m"},
		{IDs: []string{"s-0123456789ab"}, Timeout: "40"},
		{IDs: []string{"s-0123456789ab"}, Timeout: "-1m"},
	} {
		o.Sessions = noDaemon(t)
		if err := waitRun(o); fault.KindOf(err) != fault.Invalid {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

func TestMonitorAndPromptRefuseBeforeTheDaemon(t *testing.T) {
	err := monitorRun(&MonitorOptions{IDs: []string{"s-0123456789ab"}, For: "45", Sessions: noDaemon(t)})
	if err == nil || !strings.Contains(err.Error(), `--for "45" needs a unit`) {
		t.Errorf("monitor --for 45: %v", err)
	}
	err = promptRun(&PromptOptions{ID: "s-0123456789ab", App: &app.Env{Sessions: noDaemon(t)}})
	if err == nil || !strings.Contains(err.Error(), "give --text or --file") {
		t.Errorf("prompt with nothing: %v", err)
	}
	if err := killRun(&KillOptions{ID: "s-1", App: &app.Env{Sessions: noDaemon(t)}}); fault.KindOf(err) != fault.Invalid {
		t.Errorf("kill s-1: %v", err)
	}
}

func TestGCVerdict(t *testing.T) {
	now := time.Now()
	cases := map[string]*sessions.Record{
		"cleaned":     {State: sessions.StateCleaned},
		"would clean": {State: sessions.StateSettled},
		"keep":        {State: sessions.StateRunning, LastActivity: now},
	}
	cases["would clean "] = &sessions.Record{State: sessions.StateFailed}
	for want, r := range cases {
		if got := gcVerdict(r); got != strings.TrimSpace(want) {
			t.Errorf("%s: %q, want %q", r.State, got, want)
		}
	}
	if got := gcVerdict(&sessions.Record{State: sessions.StateRunning, LastActivity: now.Add(-time.Hour)}); !strings.HasPrefix(got, "orphan? (running, idle 1h") {
		t.Errorf("idle running: %q", got)
	}
}

// With no daemon nothing is live; gc --json still prints JSON (the empty
// list), and starts no daemon to say so.
func TestGCWithoutADaemonPrintsJSON(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	io, _, out, _ := cmdutil.Test()
	c := &sessions.Client{Repo: repo} // no Serve: a call that needed a daemon would fail
	err = gcRun(&GCOptions{IO: io, Sessions: func() (*sessions.Client, error) { return c, nil }, JSON: true})
	if err != nil || strings.TrimSpace(out.String()) != "[]" {
		t.Fatalf("gc --json without a daemon: %q, %v", out, err)
	}
}
