package worktree

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// managerRepo is a repository whose committed agentproto.toml has a setup
// hook, with a Manager over it and its ledger.
func managerRepo(t *testing.T, setup string) (*Manager, *gitstore.Ledger, *bytes.Buffer) {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[worktree]\nsetup = ["+setup+"]\n"), 0o644)
	testgit.Run(t, dir, "add", "agentproto.toml")
	testgit.Run(t, dir, "commit", "-q", "-m", "hooks")
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gitstore.EnsureWriterID(repo.CommonDir); err != nil {
		t.Fatal(err)
	}
	l := gitstore.Open(repo, gitstore.Options{})
	var out bytes.Buffer
	mg := &Manager{Repo: repo, Config: config.Worktree{Root: t.TempDir()}, Out: &out,
		Ledger: func() (gitstore.Store, error) { return l, nil }}
	return mg, l, &out
}

func eventsOf(t *testing.T, l *gitstore.Ledger, kind string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	err := l.Each(gitstore.Query{Kinds: []string{kind}, Reverse: true}, func(e *gitstore.Event) error {
		out = append(out, e.Data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestManagerEnsureMakesOnceAndRecords: Ensure refuses untrusted hooks
// before making anything, then makes the worktree with its setup run and
// recorded, and afterwards returns it as it is.
func TestManagerEnsureMakesOnceAndRecords(t *testing.T) {
	mg, l, out := managerRepo(t, `"echo ran >> setup-ran"`)
	mg.By = "test"
	_, _, err := mg.Ensure(CreateOptions{Slug: "one"})
	if fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), "not trusted") {
		t.Fatalf("untrusted hooks: %v", err)
	}
	if all, _ := All(mg.Repo); len(all) != 0 || len(eventsOf(t, l, KindProvisioned)) != 0 {
		t.Fatalf("an untrusted Ensure made %d worktrees or recorded them", len(all))
	}
	head := testgit.Run(t, mg.Repo.WorkTree, "rev-parse", "HEAD")
	h, err := HooksAt(mg.Repo, head)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(mg.Repo, h); err != nil {
		t.Fatal(err)
	}
	m, created, err := mg.Ensure(CreateOptions{Slug: "one"})
	if err != nil || !created {
		t.Fatalf("Ensure: created %v, %v", created, err)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "setup-ran")); string(b) != "ran\n" {
		t.Errorf("setup-ran: %q", b)
	}
	if !strings.Contains(out.String(), "[setup 1/1]") {
		t.Errorf("no setup output in Out:\n%s", out)
	}
	again, created, err := mg.Ensure(CreateOptions{Slug: "one", Base: "no-such-rev"})
	if err != nil || created || again.Path != m.Path {
		t.Fatalf("second Ensure: %+v created %v %v", again, created, err)
	}
	if !strings.Contains(out.String(), "worktree one exists (base main") {
		t.Errorf("no note that the base asked for is not applied:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "setup-ran")); string(b) != "ran\n" {
		t.Errorf("setup ran again: %q", b)
	}
	evs := eventsOf(t, l, KindProvisioned)
	if len(evs) != 1 {
		t.Fatalf("%d provisioned events, want 1", len(evs))
	}
	var ev Provisioned
	if err := json.Unmarshal(evs[0], &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Slug != "one" || ev.Base != "main" || ev.BaseCommit != head || ev.By != "test" || ev.Setup == nil || !ev.Setup.OK {
		t.Errorf("event: %s", evs[0])
	}
	if _, _, err := mg.Ensure(CreateOptions{Slug: "Bad/slug"}); fault.KindOf(err) != fault.Invalid {
		t.Errorf("bad slug: %v", err)
	}
}

// TestManagerSetupFailureKeepsTheWorktree: a failing setup hook leaves the
// worktree marked setup-failed, returned with the error, and recorded with
// the failure and the hook's log.
func TestManagerSetupFailureKeepsTheWorktree(t *testing.T) {
	mg, l, _ := managerRepo(t, `"echo about to fail", "exit 3"`)
	head := testgit.Run(t, mg.Repo.WorkTree, "rev-parse", "HEAD")
	h, _ := HooksAt(mg.Repo, head)
	if _, err := Trust(mg.Repo, h); err != nil {
		t.Fatal(err)
	}
	m, err := mg.New(CreateOptions{Slug: "broken"})
	if err == nil || m == nil || !strings.Contains(err.Error(), "kept for inspection at "+m.Path) {
		t.Fatalf("New: %+v %v", m, err)
	}
	if got, _ := Load(mg.Repo, "broken"); got == nil || got.State != StateSetupFailed {
		t.Fatalf("state: %+v", got)
	}
	var seen *gitstore.Event
	l.Each(gitstore.Query{Kinds: []string{KindProvisioned}}, func(e *gitstore.Event) error { seen = e; return nil })
	if seen == nil || !strings.Contains(string(seen.Data), `"ok":false`) || !strings.Contains(string(seen.Data), "exited with code 3") ||
		len(seen.Attachments) != 1 || seen.Attachments[0].Name != "setup.log" {
		t.Fatalf("event: %+v", seen)
	}
}

// TestManagerTeardownSteps: remove, archive, restore and gc each do their
// step and record it; a dirty tree is refused by Remove with nothing
// recorded.
func TestManagerTeardownSteps(t *testing.T) {
	mg, l, _ := managerRepo(t, "")
	for _, slug := range []string{"a", "b", "c"} {
		if _, err := mg.New(CreateOptions{Slug: slug}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := Load(mg.Repo, "a")
	os.WriteFile(filepath.Join(a.Path, "work.txt"), []byte("mine\n"), 0o644)
	if _, err := mg.Remove("a", RemoveOptions{}); fault.KindOf(err) != fault.Refused {
		t.Fatalf("dirty remove: %v", err)
	}
	if n := len(eventsOf(t, l, KindRemoved)); n != 0 {
		t.Fatalf("a refused remove recorded %d events", n)
	}
	s, err := mg.Archive("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.Path); !os.IsNotExist(err) {
		t.Errorf("archived worktree still there: %v", err)
	}
	m, s2, err := mg.Restore("a")
	if err != nil || s2.Ref != s.Ref {
		t.Fatalf("restore: %v (%v)", err, s2)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "work.txt")); string(b) != "mine\n" {
		t.Errorf("restored work: %q", b)
	}
	r, err := mg.Remove("b", RemoveOptions{})
	if err != nil || r.Meta == nil || r.Meta.Slug != "b" {
		t.Fatalf("remove b: %+v %v", r, err)
	}
	rows, err := mg.GC(true, func(m *Meta) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]string{}
	for _, row := range rows {
		done[row.Slug] = row.Action + "/" + row.Done
	}
	if done["a"] != "salvage/archived" || done["c"] != "reclaim/removed" || len(done) != 2 {
		t.Errorf("gc: %v", done)
	}
	count := func(kind string) int { return len(eventsOf(t, l, kind)) }
	if count(KindArchived) != 2 || count(KindRestored) != 1 || count(KindRemoved) != 2 {
		t.Errorf("events: archived %d restored %d removed %d, want 2 1 2",
			count(KindArchived), count(KindRestored), count(KindRemoved))
	}
	var gcRemoved Removed
	json.Unmarshal(eventsOf(t, l, KindRemoved)[1], &gcRemoved)
	if gcRemoved.Slug != "c" || gcRemoved.By != "gc" {
		t.Errorf("gc's removal: %+v", gcRemoved)
	}
}
