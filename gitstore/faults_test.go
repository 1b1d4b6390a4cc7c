package gitstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/agentproto/agentproto/internal/testgit"
)

// An empty or garbage writer ref is an error naming it: the append writes
// nothing (it does not start a new root), reads fail, verify reports it.
func TestUnreadableLedgerRefIsAnErrorNotAbsent(t *testing.T) {
	for name, content := range map[string]string{"empty": "", "garbage": "zz not a commit\n", "short": "0123456789\n"} {
		t.Run(name, func(t *testing.T) {
			l, dir := newLedger(t)
			if _, err := l.AppendUser([]Draft{note("a", `{}`)}); err != nil {
				t.Fatal(err)
			}
			ref := LedgerRefPrefix + mustWriter(t, dir)
			objects := testgit.Run(t, dir, "cat-file", "--batch-all-objects", "--batch-check")
			file := filepath.Join(dir, ".git", ref)
			if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := l.AppendUser([]Draft{note("b", `{}`)})
			if err == nil || !strings.Contains(err.Error(), ref) {
				t.Fatalf("append over an unreadable ref: %v", err)
			}
			if b, _ := os.ReadFile(file); string(b) != content {
				t.Fatalf("the ref file was rewritten to %q", b)
			}
			if now := testgit.Run(t, dir, "cat-file", "--batch-all-objects", "--batch-check"); now != objects {
				t.Fatalf("objects were written:\n%s\nwant\n%s", now, objects)
			}
			if err := l.Each(Query{}, func(*Event) error { return nil }); err == nil || !strings.Contains(err.Error(), ref) {
				t.Fatalf("read over an unreadable ref: %v", err)
			}
			rep, err := l.Verify()
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() || rep.Findings[0].Code != "unreadable-ref" || rep.Findings[0].Ref != ref {
				t.Fatalf("verify = %+v", rep)
			}
		})
	}
}

// A damaged index.db (truncated, or garbled anywhere) never crashes a
// command and never blocks it: it is moved aside with a warning and built
// again from git, and the reads that follow are whole.
func TestDamagedIndexIsRebuilt(t *testing.T) {
	l, dir := newLedger(t)
	var drafts []Draft
	for i := 0; i < 600; i++ {
		kind := "note"
		if i%3 == 0 {
			kind = "x.other"
		}
		drafts = append(drafts, Draft{Kind: kind, ID: fmt.Sprintf("e%04d", i), Data: json.RawMessage(fmt.Sprintf(`{"i":%d,"text":"%s"}`, i, strings.Repeat("x", i%97)))})
	}
	if _, err := l.AppendUser(drafts); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(logIDs(t, l, Query{}), ",")
	path := filepath.Join(dir, ".git", "agentproto", "index.db")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Damage matters where pages are in use: up to bbolt's high-water mark.
	ix, err := openIndex(filepath.Join(dir, ".git"), true)
	if err != nil {
		t.Fatal(err)
	}
	var used int
	ix.db.View(func(tx *bolt.Tx) error { used = int(tx.Size()); return nil })
	ix.close()
	const page = 4096
	type damage struct {
		name  string
		bytes func() []byte
	}
	var cases []damage
	seen := map[int]bool{}
	for _, n := range []int{0, 1, 100, page, 2 * page, 3 * page, used / 2, used - page, used - 1, len(good) - 1} {
		if seen[n] { // the file may end where its pages do
			continue
		}
		seen[n] = true
		cases = append(cases, damage{fmt.Sprintf("truncated to %d", n), func() []byte { return good[:n] }})
	}
	garble := func(offsets ...int) func() []byte {
		return func() []byte {
			b := append([]byte(nil), good...)
			for _, off := range offsets {
				for i := off; i < off+64 && i < len(b); i++ {
					b[i] = byte(i*131 + 7)
				}
			}
			return b
		}
	}
	cases = append(cases, damage{"both meta pages garbled", garble(0, page)})
	for off := 0; off < used; off += 3*page + page/3 {
		cases = append(cases, damage{fmt.Sprintf("garbled at %d", off), garble(off)})
	}
	for off := 2 * page; off < used; off += 11 * page {
		cases = append(cases, damage{fmt.Sprintf("page headers garbled from %d", off), garble(off, off+page, off+2*page)})
	}
	detected := 0
	for _, c := range cases {
		if err := os.WriteFile(path, c.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fresh := Open(l.repo, Options{})
		var got []string
		var readErr error
		var warns Warnings
		for try := 0; try < 2; try++ {
			got = got[:0]
			readErr = fresh.Each(Query{Warnings: &warns}, func(e *Event) error { got = append(got, e.ID); return nil })
			if readErr == nil {
				break
			}
		}
		if readErr != nil || strings.Join(got, ",") != want {
			t.Errorf("%s: read %d events, err %v; warnings %q", c.name, len(got), readErr, warns)
			continue
		}
		res, err := fresh.AppendUser([]Draft{note("after-"+strings.ReplaceAll(c.name, " ", "-"), `{}`)})
		if err != nil || len(res.Written) != 1 {
			t.Errorf("%s: append after the damage: %v", c.name, err)
		}
		if res != nil {
			warns = append(warns, res.Warnings...)
		}
		want = strings.Join(logIDs(t, fresh, Query{Warnings: &warns}), ",")
		for _, w := range warns {
			if !strings.Contains(w, "damaged") {
				t.Errorf("%s: unexpected warning %q", c.name, w)
			}
		}
		if len(warns) > 0 {
			detected++
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: index.db is %v after the rebuild, want mode 0600 (%v)", c.name, fi.Mode(), err)
		}
	}
	// Most damage lands on pages in use; if none was seen, the cases missed.
	if detected < len(cases)/3 {
		t.Fatalf("damage was found in only %d of %d cases", detected, len(cases))
	}
}

// index.db holds the text of every event: only its owner may read it, also
// when an older version made it readable by all.
func TestIndexIsPrivate(t *testing.T) {
	l, dir := newLedger(t)
	if _, err := l.AppendUser([]Draft{note("a", `{"text":"private"}`)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".git", "agentproto", "index.db")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new index: %v %v", fi.Mode(), err)
	}
	os.Chmod(path, 0o644)
	if _, _, err := l.Count(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("index after a read: %v %v", fi.Mode(), err)
	}
}
