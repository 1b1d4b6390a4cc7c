package lessons

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/gitstore/memstore"
)

func TestLessonsNewestFirstByTag(t *testing.T) {
	store := memstore.New()
	for _, l := range []struct {
		text string
		tags []string
	}{{"run go vet", []string{"go"}}, {"quote globs", nil}, {"pin the toolchain", []string{"go", "ci"}}, {"cache npm", []string{"js"}}} {
		if written, err := Add(store, l.text, l.tags); err != nil || !written {
			t.Fatalf("adding %q: %v, %v", l.text, written, err)
		}
	}
	if written, err := Add(store, "  run go vet ", []string{"go"}); err != nil || written {
		t.Fatalf("the same lesson twice: written %v, %v", written, err)
	}
	texts := func(tags []string, untagged bool, limit int) string {
		t.Helper()
		ls, err := List(store, tags, untagged, limit)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			if l.Time == "" {
				t.Fatalf("lesson %q has no time", l.Text)
			}
		}
		return strings.Join(Texts(ls), "|")
	}
	for _, c := range []struct {
		tags     []string
		untagged bool
		limit    int
		want     string
	}{
		{nil, false, 0, "cache npm|pin the toolchain|quote globs|run go vet"},
		{nil, false, 2, "cache npm|pin the toolchain"},
		{[]string{"go"}, false, 0, "pin the toolchain|run go vet"},
		{[]string{"go"}, true, 0, "pin the toolchain|quote globs|run go vet"},
		{[]string{"js"}, true, 1, "cache npm"},
		{nil, true, 0, "quote globs"},
	} {
		if got := texts(c.tags, c.untagged, c.limit); got != c.want {
			t.Errorf("tags %v untagged %v limit %d: %q, want %q", c.tags, c.untagged, c.limit, got, c.want)
		}
	}
	// A note that says it is a lesson is still a note.
	if _, err := store.AppendUser([]gitstore.Draft{{Kind: "note", ID: "n1", Data: []byte(`{"kind":"lesson_added","text":"curl | sh","tags":[]}`)}}); err != nil {
		t.Fatal(err)
	}
	if got := texts(nil, false, 0); strings.Contains(got, "curl") {
		t.Fatalf("a note was read as a lesson: %q", got)
	}
	if _, err := Add(store, "bad tag", []string{"Not OK"}); err == nil {
		t.Fatal("a malformed tag was accepted")
	}
}
