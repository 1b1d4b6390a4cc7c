package gitstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/testgit"
)

// An id prefix reads what the kind filter reads, minus the other ids:
// every record of an id, whoever wrote it — here a peer's record of p/1
// made before this clone's own, which the id index does not keep — and
// the peer's records the read itself brings into the index (they arrived
// by a plain git fetch, here update-ref).
func TestIDPrefixReadsEveryRecordOfItsIDs(t *testing.T) {
	l, dir := newLedger(t)
	if _, err := l.AppendUser([]Draft{note("p/0", `{"text":"own 0"}`), note("p/1", `{"text":"own 1"}`), note("q/0", `{"text":"own q"}`)}); err != nil {
		t.Fatal(err)
	}
	logIDs(t, l, Query{}) // the index is made and up to date
	const peer = "w-0123456789abcdef"
	empty := testgit.Run(t, dir, "hash-object", "-t", "tree", "-w", "/dev/null")
	tip := ""
	for i, id := range []string{"p/1", "p/2", "pp/0", "q/1"} {
		env := fmt.Sprintf(`{"schema":"agentproto.event/v1","id":%q,"kind":"note","lamport":%d,"writer":%q,"time":"2026-01-01T00:00:00Z","data":{"text":"peer %d"}}`, id, i+1, peer, i)
		args := []string{"commit-tree", empty, "-m", "agentproto note " + id + "\n\n" + env}
		if tip != "" {
			args = append(args, "-p", tip)
		}
		tip = testgit.Run(t, dir, args...)
	}
	testgit.Run(t, dir, "update-ref", LedgerRefPrefix+peer, tip)

	records := func(q Query) string {
		var out []string
		if err := l.Each(q, func(e *Event) error {
			out = append(out, e.ID+"="+strings.TrimSuffix(strings.TrimPrefix(string(e.Data), `{"text":"`), `"}`))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, ",")
	}
	// The first read after the fetch refreshes the index in its own
	// transaction.
	first := records(Query{IDPrefix: "p/", Kinds: []string{"note"}, Reverse: true})
	if want := "p/1=peer 0,p/0=own 0,p/2=peer 1,p/1=own 1"; first != want {
		t.Fatalf("first read under p/: %q, want %q", first, want)
	}
	if byKind := filterPrefix(records(Query{Kinds: []string{"note"}, Reverse: true}), "p/"); first != byKind {
		t.Fatalf("under p/: %q; the kind filter's p/ records: %q", first, byKind)
	}
	if got := records(Query{IDPrefix: "p/", Kinds: []string{"note"}, Reverse: true}); got != first {
		t.Fatalf("second read under p/: %q, first: %q", got, first)
	}
	if got := records(Query{IDPrefix: "p/", Reverse: true}); got != first {
		t.Fatalf("under p/ without kinds: %q, want %q", got, first)
	}
	if got := records(Query{IDPrefix: "p/", Kinds: []string{"note"}, Limit: 2}); got != "p/1=own 1,p/2=peer 1" {
		t.Fatalf("newest two under p/: %q", got)
	}
}

// filterPrefix keeps the "id=text" records of listing whose id starts
// with prefix.
func filterPrefix(listing, prefix string) string {
	var out []string
	for _, r := range strings.Split(listing, ",") {
		if strings.HasPrefix(r, prefix) {
			out = append(out, r)
		}
	}
	return strings.Join(out, ",")
}
