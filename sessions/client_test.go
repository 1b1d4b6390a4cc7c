package sessions_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testbin"
	"github.com/agentproto/agentproto/internal/testgit"
	"github.com/agentproto/agentproto/sessions"
)

// The binaries are built once, by the first test that needs them: fuzz
// workers and the unit tests of this package run without.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func built(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { binDir, buildErr = testbin.Build() })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// newClient is a client of a fresh repository whose daemon is the real
// git-agentproto serve, started on demand as the CLI starts it.
func newClient(t *testing.T) (*sessions.Client, string) {
	t.Helper()
	built(t)
	testgit.Isolate(t)
	t.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("AGENTPROTO_DAEMON_IDLE", "5s")
	dir := testgit.Init(t)
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := testbin.StopDaemon(dir); err != nil {
			t.Error(err)
		}
	})
	return &sessions.Client{Repo: repo, Serve: []string{filepath.Join(binDir, "git-agentproto"), "serve"}}, dir
}

func scripted(dir, prompt string) sessions.StartArgs {
	return sessions.StartArgs{Adapter: "scripted", Path: filepath.Join(binDir, "agentproto-adapter-scripted"),
		Dir: dir, Prompt: prompt, Env: os.Environ(), Ping: true, Label: "client-test"}
}

// Every typed call reaches its operation in a real daemon and brings back
// what the daemon did: a session started (ping, then prompt), waited for,
// prompted again, watched, collected by a policy that kills it.
func TestTypedClientAgainstTheDaemon(t *testing.T) {
	c, dir := newClient(t)
	pid, err := c.Ping(t.Context())
	if err != nil || pid <= 0 || pid == os.Getpid() {
		t.Fatalf("Ping = %d, %v", pid, err)
	}
	rec, err := c.Start(t.Context(), scripted(dir, "first words"))
	if err != nil {
		t.Fatal(err)
	}
	if sessions.ValidateID(rec.ID) != nil || rec.Adapter != "scripted" || rec.Label != "client-test" || rec.Turns < 2 {
		t.Fatalf("started %+v", rec)
	}
	if pending, err := c.Wait(t.Context(), []string{rec.ID}, sessions.UntilTurnEnd, 30*time.Second); err != nil || len(pending) != 0 {
		t.Fatalf("Wait = %v, %v", pending, err)
	}
	if err := c.Prompt(t.Context(), rec.ID, "second words", false); err != nil {
		t.Fatal(err)
	}
	if pending, err := c.Wait(t.Context(), []string{rec.ID}, "", 30*time.Second); err != nil || len(pending) != 0 {
		t.Fatalf("Wait = %v, %v", pending, err)
	}
	store := sessions.OpenView(c.Repo.CommonDir)
	out, _ := os.ReadFile(store.OutputPath(rec.ID))
	if !strings.Contains(string(out), "first words") || !strings.Contains(string(out), "second words") {
		t.Fatalf("output %q", out)
	}
	recs, err := c.Monitor(t.Context(), []string{rec.ID}, 300*time.Millisecond)
	if err != nil || len(recs) != 1 || recs[0].ID != rec.ID || recs[0].State != sessions.StateSettled || recs[0].Turns != 3 {
		t.Fatalf("Monitor = %+v, %v", recs, err)
	}
	if live, err := c.GC(t.Context(), false); err != nil || len(live) != 1 || live[0].State != sessions.StateSettled {
		t.Fatalf("GC dry run = %+v, %v", live, err)
	}
	// The session is settled: a turn-end policy fires at once.
	p, err := c.AttachPolicy(t.Context(), sessions.PolicyArgs{Sessions: []string{rec.ID}, On: "turn-end", Do: []string{sessions.ActKill}, Dir: dir})
	if err != nil || !strings.HasPrefix(p.ID, "p-") {
		t.Fatalf("AttachPolicy = %+v, %v", p, err)
	}
	if pending, err := c.WaitPolicies(t.Context(), []string{p.ID}, 30*time.Second); err != nil || len(pending) != 0 {
		t.Fatalf("WaitPolicies = %v, %v", pending, err)
	}
	if got, _ := store.Load(rec.ID); got.State != sessions.StateCleaned || !strings.Contains(got.Failure, p.ID) {
		t.Fatalf("after the kill policy: %+v", got)
	}
	ps, err := c.Policies(t.Context())
	if err != nil || len(ps) != 1 || ps[0].Fired != 1 || ps[0].Last[0].Action != sessions.ActKill || !ps[0].Last[0].OK {
		t.Fatalf("Policies = %+v, %v", ps, err)
	}
	if err := c.CancelPolicy(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	if ps, _ := c.Policies(t.Context()); !ps[0].Canceled {
		t.Fatalf("canceled policy: %+v", ps[0])
	}
}

// Kill ends a live session; the daemon's refusals come back as the error
// kinds the CLI maps to exit codes, with the daemon's reason.
func TestTypedClientKillAndRefusals(t *testing.T) {
	c, dir := newClient(t)
	rec, err := c.Start(t.Context(), scripted(dir, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	killed, err := c.Kill(t.Context(), rec.ID)
	if err != nil || killed.ID != rec.ID || killed.State != sessions.StateCleaned {
		t.Fatalf("Kill = %+v, %v", killed, err)
	}
	if err := c.Prompt(t.Context(), rec.ID, "more", false); fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "is cleaned") {
		t.Errorf("prompt of a cleaned session: %v", err)
	}
	none := "s-000000000000"
	if _, err := c.Kill(t.Context(), none); fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "no session "+none) {
		t.Errorf("kill of no session: %v", err)
	}
	if _, err := c.Wait(t.Context(), []string{none}, sessions.UntilExit, time.Second); fault.KindOf(err) != fault.Invalid {
		t.Errorf("wait for no session: %v", err)
	}
	if _, err := c.Wait(t.Context(), []string{rec.ID}, "forever", time.Second); err == nil || !strings.Contains(err.Error(), "--until takes turn-end or exit") {
		t.Errorf("wait until forever: %v", err)
	}
	bad := scripted(dir, "x")
	bad.Path = ""
	if got, err := c.Start(t.Context(), bad); fault.KindOf(err) != fault.Invalid || got != nil {
		t.Errorf("start without a path: %+v, %v", got, err)
	}
	if err := c.CancelPolicy(t.Context(), "p-000000000000"); fault.KindOf(err) != fault.Invalid {
		t.Errorf("cancel of no policy: %v", err)
	}
	// A session that fails while starting comes back with its record.
	crash := scripted(dir, "x")
	crash.Path = filepath.Join(binDir, "git-agentproto") // not an adapter
	got, err := c.Start(t.Context(), crash)
	if err == nil || got == nil || got.State != sessions.StateFailed || !strings.Contains(err.Error(), got.ID) {
		t.Errorf("start of a non-adapter: %+v, %v", got, err)
	}
}
