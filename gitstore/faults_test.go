package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/testgit"
)

// An empty or garbage writer ref is an error naming it: the append writes
// nothing (it does not start a new root), reads fail, verify reports it.
func TestUnreadableLedgerRefIsAnErrorNotAbsent(t *testing.T) {
	for name, content := range map[string]string{"empty": "", "garbage": "zz not a commit\n", "short": "0123456789\n"} {
		t.Run(name, func(t *testing.T) {
			l, dir := newLedger(t)
			if _, err := l.Append([]Draft{note("a", `{}`)}); err != nil {
				t.Fatal(err)
			}
			ref := LedgerRefPrefix + mustWriter(t, dir)
			objects := testgit.Run(t, dir, "cat-file", "--batch-all-objects", "--batch-check")
			file := filepath.Join(dir, ".git", ref)
			if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := l.Append([]Draft{note("b", `{}`)})
			if err == nil || !strings.Contains(err.Error(), ref) {
				t.Fatalf("append over an unreadable ref: %v", err)
			}
			if b, _ := os.ReadFile(file); string(b) != content {
				t.Fatalf("the ref file was rewritten to %q", b)
			}
			if now := testgit.Run(t, dir, "cat-file", "--batch-all-objects", "--batch-check"); now != objects {
				t.Fatalf("objects were written:\n%s\nwant\n%s", now, objects)
			}
			if err := l.Events(Query{}, func(*Event) error { return nil }); err == nil || !strings.Contains(err.Error(), ref) {
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
