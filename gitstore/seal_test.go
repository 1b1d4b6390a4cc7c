package gitstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/testgit"
)

var (
	sealOwner = NewOwner("seal-test")
	sealKind  = Declare[kindsTestData](sealOwner, "seal_test_item", Sealed())
	plainKind = Declare[kindsTestData](sealOwner, "seal_test_plain")
)

// handMade commits e on ref with git plumbing, as someone bypassing the
// ledger would, and returns the commit.
func handMade(t *testing.T, dir, ref string, e *Event) string {
	t.Helper()
	env, err := encodeEnvelope(e)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"commit-tree", emptyTreeOID, "-m", "agentproto " + e.Kind + " " + e.ID + "\n\n" + string(env)}
	parent := strings.TrimSpace(testgit.Run(t, dir, "for-each-ref", "--format=%(objectname)", ref))
	if parent != "" {
		args = append(args, "-p", parent)
	}
	c := strings.TrimSpace(testgit.Run(t, dir, args...))
	testgit.Run(t, dir, "update-ref", ref, c)
	return c
}

// latest reads back the newest event of kind.
func latest(t *testing.T, l *Ledger, kind string) *Event {
	t.Helper()
	for e, err := range l.Events(Query{Kinds: []string{kind}, Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	t.Fatalf("no %s event", kind)
	return nil
}

func sealCodes(t *testing.T, l *Ledger) map[string]string {
	t.Helper()
	rep, err := l.Verify()
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, f := range rep.Findings {
		codes[f.ID] = f.Code
	}
	return codes
}

// An event of a sealed kind this clone wrote carries its seal; one made
// by hand on the same ref — no seal, or a seal copied from another event
// — is refused and reported by ledger verify; a peer's is foreign, which
// verify does not hold against it.
func TestSealTellsOwnEventsFromHandMadeOnes(t *testing.T) {
	l, dir := newLedger(t)
	if _, err := sealKind.Record(l, "own", kindsTestData{N: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := plainKind.Record(l, "plain", kindsTestData{N: 1}); err != nil {
		t.Fatal(err)
	}
	own := latest(t, l, "seal_test_item")
	if own.Seal == "" || l.CheckSeal(own) != nil {
		t.Fatalf("the clone's own event: seal %q, check %v", own.Seal, l.CheckSeal(own))
	}
	// Every event is sealed; only a Sealed kind's readers are refused.
	plain := latest(t, l, "seal_test_plain")
	if plain.Seal == "" || l.CheckSeal(plain) != nil {
		t.Fatalf("a kind that is not Sealed: seal %q, check %v", plain.Seal, l.CheckSeal(plain))
	}
	ref, _ := l.WriterRef()
	bare := *own
	bare.ID, bare.Lamport, bare.Seal, bare.Data = "bare", own.Lamport+10, "", []byte(`{"n":2}`)
	handMade(t, dir, ref, &bare)
	copied := bare
	copied.ID, copied.Lamport, copied.Seal = "copied", own.Lamport+11, own.Seal
	handMade(t, dir, ref, &copied)
	note := *plain
	note.ID, note.Lamport, note.Seal = "plain-by-hand", own.Lamport+12, ""
	handMade(t, dir, ref, &note)
	if e, _, _ := l.Get("plain-by-hand"); l.CheckSeal(e) != nil {
		t.Fatalf("a reader of a kind that is not Sealed is refused it: %v", l.CheckSeal(e))
	}
	peer := bare
	peer.ID, peer.Writer, peer.Seal = "peer", "w-00000000000000aa", ""
	handMade(t, dir, LedgerRefPrefix+peer.Writer, &peer)

	var se *SealError
	for _, c := range []struct {
		id, why string
		foreign bool
	}{{"bare", "carries no seal", false}, {"copied", "does not match", false}, {"peer", "not by this clone", true}} {
		e, _, err := l.Get(c.id)
		if err != nil {
			t.Fatal(err)
		}
		err = l.CheckSeal(e)
		if !errors.As(err, &se) || se.Foreign != c.foreign || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: check %v, want a SealError saying %q (foreign %v)", c.id, err, c.why, c.foreign)
		}
	}
	codes := sealCodes(t, l)
	if codes["bare"] != "unsealed" || codes["copied"] != "bad-seal" || codes["plain-by-hand"] != "unsealed" || len(codes) != 3 {
		t.Fatalf("verify findings %v, want bare and plain-by-hand unsealed and copied bad-seal only", codes)
	}
	found, err := l.UnsealedSince(strings.TrimSpace(testgit.Run(t, dir, "rev-parse", ref+"~3")))
	if err != nil || strings.Join(found, ",") != "seal_test_item bare,seal_test_item copied,seal_test_plain plain-by-hand" {
		t.Fatalf("made by hand since the pipeline's own events: %q, %v", found, err)
	}
}

// Events this clone wrote before it held a key (an older version's) are
// its own; one made by hand after the key exists is not, however low the
// clock it claims.
func TestSealKeepsEventsWrittenBeforeTheKey(t *testing.T) {
	l, dir := newLedger(t)
	writer, _, err := EnsureWriterID(l.repo.CommonDir)
	if err != nil {
		t.Fatal(err)
	}
	ref := LedgerRefPrefix + writer
	old := &Event{Schema: Schema, ID: "old", Kind: "seal_test_item", Lamport: 1, Writer: writer,
		Time: "2026-01-01T00:00:00Z", Data: []byte(`{"n":1}`)}
	handMade(t, dir, ref, old)
	// The first append makes the key: what the ref held is from before.
	if _, err := plainKind.Record(l, "first", kindsTestData{N: 1}); err != nil {
		t.Fatal(err)
	}
	late := *old
	late.ID, late.Lamport = "late", 0
	handMade(t, dir, ref, &late)
	fresh := Open(l.repo, Options{}) // another process: nothing remembered
	for id, trusted := range map[string]bool{"old": true, "late": false} {
		e, _, err := fresh.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := fresh.CheckSeal(e); (err == nil) != trusted {
			t.Errorf("%s: check %v, want trusted %v", id, err, trusted)
		}
	}
	if codes := sealCodes(t, fresh); codes["late"] != "unsealed" || codes["old"] != "" {
		t.Fatalf("verify findings %v, want only late unsealed", codes)
	}
}
