package gitstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

func newLedger(t testing.TB) (*Ledger, string) {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Open(repo, Options{}), dir
}

func note(id, data string) Draft {
	return Draft{Kind: "note", ID: id, Data: json.RawMessage(data)}
}

func logIDs(t *testing.T, l *Ledger, q Query) []string {
	t.Helper()
	var ids []string
	err := l.Each(q, func(e *Event) error {
		ids = append(ids, e.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestAppendThenReadBack(t *testing.T) {
	l, dir := newLedger(t)
	res, err := l.AppendUser([]Draft{note("a", `{"b":2,"a":1}`), note("b", `{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 2 || len(res.Existing) != 0 {
		t.Fatalf("written %v existing %v", res.Written, res.Existing)
	}
	if got := logIDs(t, l, Query{}); strings.Join(got, ",") != "b,a" {
		t.Fatalf("log newest first = %v", got)
	}
	if got := logIDs(t, l, Query{Reverse: true, Limit: 1}); strings.Join(got, ",") != "a" {
		t.Fatalf("log reverse limit 1 = %v", got)
	}
	e, commit, err := l.Get("a")
	if err != nil {
		t.Fatal(err)
	}
	if string(e.Data) != `{"a":1,"b":2}` || e.Lamport != 1 || e.Schema != Schema {
		t.Fatalf("event = %+v", e)
	}
	// git itself sees one commit per event, with the envelope in the message.
	msg := testgit.Run(t, dir, "log", "-1", "--format=%B", commit)
	if !strings.HasPrefix(msg, "agentproto note a\n\n{\"schema\":\"agentproto.event/v1\"") {
		t.Fatalf("commit message = %q", msg)
	}
	if n := testgit.Run(t, dir, "rev-list", "--count", res.Tip); n != "2" {
		t.Fatalf("rev-list count = %s", n)
	}
	testgit.Run(t, dir, "fsck", "--full", "--strict")
}

func TestAppendIsIdempotentAndRefusesConflicts(t *testing.T) {
	l, dir := newLedger(t)
	if _, err := l.AppendUser([]Draft{note("n1", `{"x":1,"y":[1,2]}`)}); err != nil {
		t.Fatal(err)
	}
	tip := testgit.Run(t, dir, "rev-parse", "refs/agentproto/ledger/"+mustWriter(t, dir))
	// Same content, other key order and spacing: a no-op success.
	res, err := l.AppendUser([]Draft{note("n1", ` { "y":[1, 2], "x":1 }`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 0 || len(res.Existing) != 1 {
		t.Fatalf("replay wrote %v", res.Written)
	}
	// Other content: a conflict, and nothing of the batch is written.
	_, err = l.AppendUser([]Draft{note("fresh", `{}`), note("n1", `{"x":2}`)})
	if fault.KindOf(err) != fault.Conflict {
		t.Fatalf("err = %v (kind %d), want conflict", err, fault.KindOf(err))
	}
	if after := testgit.Run(t, dir, "rev-parse", "refs/agentproto/ledger/"+mustWriter(t, dir)); after != tip {
		t.Fatalf("ref moved on conflict: %s -> %s", tip, after)
	}
	if _, _, err := l.Get("fresh"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fresh was written: %v", err)
	}
	// Within one batch, a repeated id must carry the same content.
	_, err = l.AppendUser([]Draft{note("d", `{"a":1}`), note("d", `{"a":2}`)})
	if fault.KindOf(err) != fault.Conflict {
		t.Fatalf("in-batch duplicate: %v", err)
	}
}

func mustWriter(t *testing.T, dir string) string {
	t.Helper()
	w, err := ReadWriterID(filepath.Join(dir, ".git"))
	if err != nil || w == "" {
		t.Fatalf("writer id: %q %v", w, err)
	}
	return w
}

func TestDraftValidation(t *testing.T) {
	cases := []struct {
		name  string
		draft Draft
		want  string
	}{
		{"empty id", note("", `{}`), "record id is empty"},
		{"long id", note(strings.Repeat("x", MaxIDLength+1), `{}`), "limit is 200"},
		{"control char", note("a\x01b", `{}`), "control character"},
		{"space", note("a b", `{}`), "white space"},
		{"bad utf8", note("a\xffb", `{}`), "not valid UTF-8"},
		{"array data", note("a", `[1]`), "must be a JSON object, got an array"},
		{"null data", note("a", `null`), "got null"},
		{"malformed", note("a", `{"a":`), "not valid JSON"},
		{"two values", note("a", `{} {}`), "more than one value"},
		{"bad kind", Draft{Kind: "Note", ID: "a"}, "malformed"},
		{"bad attachment", Draft{Kind: "note", ID: "a", Attachments: []AttachmentInput{{Name: "../x"}}}, "not a plain file name"},
	}
	l, dir := newLedger(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := l.AppendUser([]Draft{c.draft})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if fault.KindOf(err) != fault.Invalid {
				t.Fatalf("kind = %d, want invalid", fault.KindOf(err))
			}
		})
	}
	if out := testgit.Run(t, dir, "for-each-ref", "refs/agentproto"); out != "" {
		t.Fatalf("bad input wrote refs: %s", out)
	}
}

func TestAttachmentsAreBlobsInTheEventTree(t *testing.T) {
	l, dir := newLedger(t)
	d := Draft{Kind: "x.gate", ID: "g1", Data: json.RawMessage(`{}`),
		Attachments: []AttachmentInput{{Name: "gate.log", Content: []byte("ok\n")}, {Name: "brief.md", Content: []byte("# b\n")}}}
	if _, err := l.AppendUser([]Draft{d}); err != nil {
		t.Fatal(err)
	}
	_, commit, err := l.Get("g1")
	if err != nil {
		t.Fatal(err)
	}
	if got := testgit.Run(t, dir, "show", commit+":gate.log"); got != "ok" {
		t.Fatalf("gate.log = %q", got)
	}
	rep, err := l.Verify()
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %+v", err, rep)
	}
}

func TestPackedBatchIsReadableByGit(t *testing.T) {
	l, dir := newLedger(t)
	var drafts []Draft
	for i := 0; i < 100; i++ {
		drafts = append(drafts, note(fmt.Sprintf("e%03d", i), fmt.Sprintf(`{"i":%d}`, i)))
	}
	if _, err := l.AppendUser(drafts); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(dir, ".git/objects/pack/*.idx"))
	if len(packs) != 1 {
		t.Fatalf("packs = %v", packs)
	}
	testgit.Run(t, dir, "verify-pack", packs[0])
	testgit.Run(t, dir, "fsck", "--full", "--strict")
	if n := testgit.Run(t, dir, "rev-list", "--count", "--glob=refs/agentproto/ledger/*"); n != "100" {
		t.Fatalf("count = %s", n)
	}
}

// The index is a cache: refs moved, rewritten or deleted behind its back
// are noticed by their tips.
func TestIndexFollowsRefsMovedBehindItsBack(t *testing.T) {
	l, dir := newLedger(t)
	if _, err := l.AppendUser([]Draft{note("a", `{}`), note("b", `{}`)}); err != nil {
		t.Fatal(err)
	}
	ref := LedgerRefPrefix + mustWriter(t, dir)
	first := testgit.Run(t, dir, "rev-parse", ref+"~1")
	// Rewind with the git CLI: the index must drop event b.
	testgit.Run(t, dir, "update-ref", ref, first)
	if got := logIDs(t, l, Query{}); strings.Join(got, ",") != "a" {
		t.Fatalf("after rewind: %v", got)
	}
	// Appending continues from the rewound tip.
	if _, err := l.AppendUser([]Draft{note("c", `{}`)}); err != nil {
		t.Fatal(err)
	}
	if got := logIDs(t, l, Query{}); strings.Join(got, ",") != "c,a" {
		t.Fatalf("after append: %v", got)
	}
	// Deleting the ref empties the ledger.
	testgit.Run(t, dir, "update-ref", "-d", ref)
	if got := logIDs(t, l, Query{}); len(got) != 0 {
		t.Fatalf("after delete: %v", got)
	}
}

func TestPackedRefsAndLockProtocol(t *testing.T) {
	l, dir := newLedger(t)
	if _, err := l.AppendUser([]Draft{note("a", `{}`)}); err != nil {
		t.Fatal(err)
	}
	ref := LedgerRefPrefix + mustWriter(t, dir)
	testgit.Run(t, dir, "pack-refs", "--all", "--prune")
	if _, err := os.Stat(filepath.Join(dir, ".git", ref)); !os.IsNotExist(err) {
		t.Fatalf("ref still loose after pack-refs: %v", err)
	}
	// The current value is found in packed-refs, so the append extends it.
	if _, err := l.AppendUser([]Draft{note("b", `{}`)}); err != nil {
		t.Fatal(err)
	}
	if n := testgit.Run(t, dir, "rev-list", "--count", ref); n != "2" {
		t.Fatalf("chain length after packed append = %s", n)
	}
	// A lock held by someone else (as git holds it) makes the append wait.
	lock := filepath.Join(dir, ".git", ref+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := l.AppendUser([]Draft{note("c", `{}`)})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("append did not wait for the ref lock: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	os.Remove(lock)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := logIDs(t, l, Query{}); strings.Join(got, ",") != "c,b,a" {
		t.Fatalf("log = %v", got)
	}
}

func TestStaleLockFromKilledProcessIsRecovered(t *testing.T) {
	l, dir := newLedger(t)
	if _, err := l.AppendUser([]Draft{note("a", `{}`)}); err != nil {
		t.Fatal(err)
	}
	ref := LedgerRefPrefix + mustWriter(t, dir)
	lock := filepath.Join(dir, ".git", ref+".lock")
	os.WriteFile(lock, nil, 0o644)
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lock, old, old)
	if _, err := l.AppendUser([]Draft{note("b", `{}`)}); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyFindsTamperedEvents(t *testing.T) {
	l, dir := newLedger(t)
	if _, err := l.AppendUser([]Draft{note("a", `{}`)}); err != nil {
		t.Fatal(err)
	}
	ref := LedgerRefPrefix + mustWriter(t, dir)
	tip := testgit.Run(t, dir, "rev-parse", ref)
	empty := testgit.Run(t, dir, "hash-object", "-t", "tree", "-w", "/dev/null")
	// A commit that is not an event, and one whose clock goes backwards.
	bad := testgit.Run(t, dir, "commit-tree", empty, "-p", tip, "-m", "hello")
	env := fmt.Sprintf(`{"schema":"agentproto.event/v1","id":"z","kind":"note","lamport":1,"writer":"%s","time":"2026-01-01T00:00:00Z","data":{}}`, mustWriter(t, dir))
	back := testgit.Run(t, dir, "commit-tree", empty, "-p", bad, "-m", "agentproto note z\n\n"+env)
	testgit.Run(t, dir, "update-ref", ref, back)

	rep, err := l.Verify()
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]bool{}
	for _, f := range rep.Findings {
		codes[f.Code] = true
	}
	if !codes["bad-envelope"] || !codes["clock-not-increasing"] || rep.Events != 3 {
		t.Fatalf("findings = %+v", rep.Findings)
	}
	// Reading skips the broken commit with a warning and keeps the rest.
	var warn Warnings
	if got := logIDs(t, l, Query{Warnings: &warn}); strings.Join(got, ",") != "z,a" && strings.Join(got, ",") != "a,z" {
		t.Fatalf("log = %v", got)
	}
	if len(warn) == 0 {
		t.Fatal("no warning for the broken commit")
	}
}

// Loose objects are packed once enough have accumulated.
func TestAutoMaintenancePacksLooseObjects(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	repo, _ := gitrepo.Discover(dir)
	l := Open(repo, Options{AutoMaintenance: 10})
	loose := func() string {
		for _, line := range strings.Split(testgit.Run(t, dir, "count-objects", "-v"), "\n") {
			if strings.HasPrefix(line, "count: ") {
				return strings.TrimPrefix(line, "count: ")
			}
		}
		return ""
	}
	before := loose()
	for i := 0; i < 4; i++ {
		if _, err := l.AppendUser([]Draft{note(fmt.Sprintf("n%d", i), `{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if loose() == before {
		t.Fatal("appends wrote no loose objects")
	}
	// 4 appends wrote 8 loose objects (commit + empty tree each); the fifth
	// crosses 10 and packs them, in the background: the append does not
	// wait for it.
	if _, err := l.AppendUser([]Draft{note("n4", `{}`)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for loose() != "0" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := loose(); got != "0" {
		t.Fatalf("%s loose objects 20 s after maintenance started", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "info", "refs")); err == nil {
		t.Fatal("maintenance wrote .git/info/refs")
	}
	if n := len(logIDs(t, l, Query{})); n != 5 {
		t.Fatalf("%d events after maintenance", n)
	}
	testgit.Run(t, dir, "fsck", "--full")
}
