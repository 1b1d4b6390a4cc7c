// Package storetest is the contract every gitstore.Store keeps, as one
// suite: the git ledger and the in-memory fake both run it, so a feature
// tested against the fake behaves the same on the ledger.
package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// Item is the data of the suite's own kinds.
type Item struct {
	N    int    `json:"n"`
	Text string `json:"text,omitempty"`
}

// The suite's kinds, owned by the suite; rival stands for another feature.
var (
	owner    = gitstore.NewOwner("storetest")
	rival    = gitstore.NewOwner("storetest-rival")
	item     = gitstore.Declare[Item](owner, "storetest_item")
	other    = gitstore.Declare[Item](owner, "storetest_other")
	scrubbed = gitstore.Declare[Item](owner, "storetest_scrubbed", gitstore.Scrubbed())
	sealed   = gitstore.Declare[Item](owner, "storetest_sealed", gitstore.Sealed())
)

// UserStore is a Store with a user path, as the ledger and the fake have.
type UserStore interface {
	gitstore.Store
	AppendUser(drafts []gitstore.Draft) (*gitstore.AppendResult, error)
}

// Run runs the suite; open returns a new, empty store for each test.
func Run(t *testing.T, open func(t *testing.T) UserStore) {
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, s UserStore)
	}{
		{"RecordAndGet", testRecordAndGet},
		{"ReplayIsIdempotent", testReplayIsIdempotent},
		{"ConflictWritesNothing", testConflictWritesNothing},
		{"BatchIsAllOrNothing", testBatchIsAllOrNothing},
		{"QueryOrderKindsLimit", testQuery},
		{"QueryAndFoldByIDPrefix", testIDPrefix},
		{"UserKindsOnlyOnTheUserPath", testUserKinds},
		{"KindsOnlyFromTheirOwner", testOwnership},
		{"SecretsRefusedOrScrubbed", testSecrets},
		{"FoldIsTyped", testFold},
		{"SealedKindsAreChecked", testSeals},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

func record(t *testing.T, s gitstore.Store, k gitstore.Kind[Item], id string, n int) *gitstore.AppendResult {
	t.Helper()
	res, err := k.Record(s, id, Item{N: n})
	if err != nil {
		t.Fatalf("recording %s: %v", id, err)
	}
	return res
}

// ids reads the ids a query selects, failing on a read error.
func ids(t *testing.T, s gitstore.Store, q gitstore.Query) string {
	t.Helper()
	var out []string
	for e, err := range s.Events(q) {
		if err != nil {
			t.Fatalf("reading %+v: %v", q, err)
		}
		out = append(out, e.ID)
	}
	return strings.Join(out, ",")
}

func testRecordAndGet(t *testing.T, s UserStore) {
	res, err := item.Record(s, "a", Item{N: 1, Text: "first"}, gitstore.AttachmentInput{Name: "log.txt", Content: []byte("hello\n")})
	if err != nil || len(res.Written) != 1 || res.Written[0] != "a" || len(res.Existing) != 0 {
		t.Fatalf("record: %+v, %v", res, err)
	}
	e, where, err := s.Get("a")
	if err != nil || where == "" {
		t.Fatalf("get: %v, %q", err, where)
	}
	if e.Kind != "storetest_item" || e.ID != "a" || e.Lamport == 0 || e.Writer == "" || e.Schema != gitstore.Schema {
		t.Fatalf("envelope = %+v", e)
	}
	if string(e.Data) != `{"n":1,"text":"first"}` {
		t.Fatalf("data = %s, want canonical JSON", e.Data)
	}
	// ce013625030ba8dba906f756967f9e9ca394464a is git's blob id of "hello\n".
	if len(e.Attachments) != 1 || e.Attachments[0].Name != "log.txt" || e.Attachments[0].Size != 6 ||
		e.Attachments[0].OID != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Fatalf("attachments = %+v", e.Attachments)
	}
	got, err := item.Decode(e)
	if err != nil || got != (Item{N: 1, Text: "first"}) {
		t.Fatalf("decode = %+v, %v", got, err)
	}
	if _, err := other.Decode(e); err == nil {
		t.Fatal("an event decoded as another kind")
	}
	_, _, err = s.Get("missing")
	if !errors.Is(err, gitstore.ErrNotFound) {
		t.Fatalf("get of an unknown id: %v, want ErrNotFound", err)
	}
	if _, _, err := s.Get("bad id"); err == nil || errors.Is(err, gitstore.ErrNotFound) {
		t.Fatalf("get of a malformed id: %v, want a refusal", err)
	}
}

func testReplayIsIdempotent(t *testing.T, s UserStore) {
	record(t, s, item, "a", 1)
	res := record(t, s, item, "a", 1)
	if len(res.Written) != 0 || len(res.Existing) != 1 {
		t.Fatalf("replay: %+v", res)
	}
	if got := ids(t, s, gitstore.Query{}); got != "a" {
		t.Fatalf("events after a replay = %q", got)
	}
}

func testConflictWritesNothing(t *testing.T, s UserStore) {
	record(t, s, item, "a", 1)
	_, err := item.Record(s, "a", Item{N: 2})
	if fault.KindOf(err) != fault.Conflict {
		t.Fatalf("same id, other content: %v, want a Conflict", err)
	}
	e, _, err := s.Get("a")
	if err != nil || string(e.Data) != `{"n":1}` {
		t.Fatalf("after the conflict a holds %s (%v)", e.Data, err)
	}
}

func testBatchIsAllOrNothing(t *testing.T, s UserStore) {
	good, err := owner.Draft("storetest_item", "b1", Item{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := good
	bad.ID = "b2"
	bad.Data = []byte(`[1]`)
	_, err = s.Append([]gitstore.Draft{good, bad})
	if err == nil || !strings.Contains(err.Error(), "event 2 of the batch") {
		t.Fatalf("a batch with a bad second event: %v", err)
	}
	record(t, s, item, "c", 1)
	twice, _ := owner.Draft("storetest_item", "c", Item{N: 9})
	if _, err := s.Append([]gitstore.Draft{good, twice}); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("a batch reusing an id: %v, want a Conflict", err)
	}
	if got := ids(t, s, gitstore.Query{}); got != "c" {
		t.Fatalf("refused batches left %q", got)
	}
}

func testQuery(t *testing.T, s UserStore) {
	for i, k := range []gitstore.Kind[Item]{item, other, item, other, item} {
		record(t, s, k, fmt.Sprintf("e%d", i+1), i+1)
	}
	for _, c := range []struct {
		q    gitstore.Query
		want string
	}{
		{gitstore.Query{}, "e5,e4,e3,e2,e1"},
		{gitstore.Query{Reverse: true}, "e1,e2,e3,e4,e5"},
		{gitstore.Query{Kinds: []string{"storetest_other"}}, "e4,e2"},
		{gitstore.Query{Kinds: []string{"storetest_item", "storetest_other"}, Reverse: true}, "e1,e2,e3,e4,e5"},
		{gitstore.Query{Kinds: []string{"storetest_item"}, Limit: 2}, "e5,e3"},
		{gitstore.Query{Limit: 1, Reverse: true}, "e1"},
		{gitstore.Query{Kinds: []string{"note"}}, ""},
	} {
		if got := ids(t, s, c.q); got != c.want {
			t.Errorf("%+v: %q, want %q", c.q, got, c.want)
		}
	}
	// Breaking out of the loop ends the read; the store stays usable.
	n := 0
	for range s.Events(gitstore.Query{}) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("read %d events before the break", n)
	}
	record(t, s, item, "e6", 6)
	var lamports []uint64
	for e, err := range s.Events(gitstore.Query{Reverse: true}) {
		if err != nil {
			t.Fatal(err)
		}
		lamports = append(lamports, e.Lamport)
	}
	for i := 1; i < len(lamports); i++ {
		if lamports[i] <= lamports[i-1] {
			t.Fatalf("clocks are not increasing: %v", lamports)
		}
	}
	// A malformed kind in a query is one error, not an empty answer.
	var errs int
	for e, err := range s.Events(gitstore.Query{Kinds: []string{`storetest_item"`}}) {
		if err == nil || e != nil {
			t.Fatalf("a malformed kind yielded %v, %v", e, err)
		}
		errs++
	}
	if errs != 1 {
		t.Fatalf("a malformed kind yielded %d errors", errs)
	}
}

func testUserKinds(t *testing.T, s UserStore) {
	n := gitstore.Draft{Kind: "note", ID: "n1", Data: []byte(`{"text":"hi"}`)}
	if _, err := s.Append([]gitstore.Draft{n}); fault.KindOf(err) != fault.Refused {
		t.Fatalf("a note through the feature path: %v, want Refused", err)
	}
	if _, err := s.AppendUser([]gitstore.Draft{n, {Kind: "x.build", ID: "b1"}}); err != nil {
		t.Fatalf("user kinds through the user path: %v", err)
	}
	forged := gitstore.Draft{Kind: "storetest_item", ID: "f1", Data: []byte(`{"n":1}`)}
	if _, err := s.AppendUser([]gitstore.Draft{forged}); fault.KindOf(err) != fault.Refused {
		t.Fatalf("a feature kind through the user path: %v, want Refused", err)
	}
	undeclared := gitstore.Draft{Kind: "storetest_undeclared", ID: "u1"}
	if _, err := s.AppendUser([]gitstore.Draft{undeclared}); fault.KindOf(err) != fault.Refused {
		t.Fatalf("an undeclared command kind through the user path: %v, want Refused", err)
	}
	if got := ids(t, s, gitstore.Query{}); got != "b1,n1" {
		t.Fatalf("events = %q", got)
	}
	// A note that says it is an item is still a note.
	if _, err := s.AppendUser([]gitstore.Draft{{Kind: "note", ID: "n2", Data: []byte(`{"kind":"storetest_item","n":7}`)}}); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, s, gitstore.Query{Kinds: []string{"storetest_item"}}); got != "" {
		t.Fatalf("a note read as an item: %q", got)
	}
}

func testOwnership(t *testing.T, s UserStore) {
	if _, err := rival.Record(s, "storetest_item", "r1", Item{N: 1}); fault.KindOf(err) != fault.Refused {
		t.Fatalf("another owner recording the kind: %v, want Refused", err)
	}
	raw := gitstore.Draft{Kind: "storetest_item", ID: "r2", Data: []byte(`{"n":1}`)}
	if _, err := s.Append([]gitstore.Draft{raw}); fault.KindOf(err) != fault.Refused {
		t.Fatalf("a raw draft of a declared kind: %v, want Refused", err)
	}
	if _, err := owner.Record(s, "storetest_item", "r3", "not an item"); err == nil {
		t.Fatal("data of the wrong type was recorded")
	}
	if _, err := owner.Record(s, "storetest_item", "r4", &Item{N: 4}); err != nil {
		t.Fatalf("a pointer to the declared type: %v", err)
	}
	if _, err := owner.Record(s, "storetest_nothing", "r5", Item{}); err == nil {
		t.Fatal("a kind the owner never declared was recorded")
	}
	if got := gitstore.KindOwner("storetest_item"); got != "storetest" {
		t.Fatalf("KindOwner = %q", got)
	}
	if got := ids(t, s, gitstore.Query{}); got != "r4" {
		t.Fatalf("events = %q", got)
	}
}

func testSecrets(t *testing.T, s UserStore) {
	token := "ghp_" + strings.Repeat("A1b2C3d4", 5)[:36]
	_, err := item.Record(s, "s1", Item{N: 1, Text: "token " + token})
	if fault.KindOf(err) != fault.Refused || strings.Contains(err.Error(), token) {
		t.Fatalf("a secret in the data: %v, want Refused without the value", err)
	}
	if _, err := scrubbed.Record(s, "s2", Item{N: 2, Text: "token " + token}, gitstore.AttachmentInput{Name: "log", Content: []byte(token)}); err != nil {
		t.Fatalf("a scrubbed kind: %v", err)
	}
	e, _, err := s.Get("s2")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(e.Data), token) || !strings.Contains(string(e.Data), "token ") {
		t.Fatalf("scrubbed data = %s", e.Data)
	}
	if e.Attachments[0].Size == int64(len(token)) {
		t.Fatalf("the attachment was not scrubbed: %+v", e.Attachments[0])
	}
	if got := ids(t, s, gitstore.Query{}); got != "s2" {
		t.Fatalf("events = %q", got)
	}
}

// tally is the state the fold test builds.
type tally struct {
	sum   int
	order []string
}

func testFold(t *testing.T, s UserStore) {
	record(t, s, item, "f1", 1)
	record(t, s, other, "f2", 10)
	record(t, s, item, "f3", 100)
	bad, err := owner.Draft("storetest_item", "f4", Item{})
	if err != nil {
		t.Fatal(err)
	}
	bad.Data = []byte(`{"n":"not a number"}`)
	if _, err := s.Append([]gitstore.Draft{bad}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendUser([]gitstore.Draft{{Kind: "note", ID: "f5", Data: []byte(`{"n":1000}`)}}); err != nil {
		t.Fatal(err)
	}
	st := &tally{}
	warnings, err := gitstore.Fold(s, st, gitstore.On(item, func(st *tally, e *gitstore.Event, d Item) {
		st.sum += d.N
		st.order = append(st.order, e.ID)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if st.sum != 101 || strings.Join(st.order, ",") != "f1,f3" {
		t.Fatalf("fold = %+v, want items only, oldest first", st)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "f4") {
		t.Fatalf("warnings = %q, want the undecodable record named", warnings)
	}
	both := &tally{}
	if _, err := gitstore.Fold(s, both,
		gitstore.On(item, func(st *tally, e *gitstore.Event, d Item) { st.sum += d.N }),
		gitstore.On(other, func(st *tally, e *gitstore.Event, d Item) { st.sum -= d.N })); err != nil {
		t.Fatal(err)
	}
	if both.sum != 91 {
		t.Fatalf("fold over two kinds = %d, want 91", both.sum)
	}
}

// An event of a sealed kind the store wrote checks out; the same event
// altered, or said to be another writer's, does not.
func testSeals(t *testing.T, s UserStore) {
	record(t, s, sealed, "s1", 1)
	record(t, s, item, "i1", 1)
	e, _, err := s.Get("s1")
	if err != nil {
		t.Fatal(err)
	}
	if e.Seal == "" || s.CheckSeal(e) != nil {
		t.Fatalf("the store's own sealed event: seal %q, check %v", e.Seal, s.CheckSeal(e))
	}
	// A kind that is not Sealed is not held to its seal.
	i, _, _ := s.Get("i1")
	i.Data = []byte(`{"n":2}`)
	if err := s.CheckSeal(i); err != nil {
		t.Fatalf("an altered event of a kind that is not Sealed: %v", err)
	}
	altered := *e
	altered.Data = []byte(`{"n":2}`)
	other := *e
	other.Writer = "w-someone-else"
	var se *gitstore.SealError
	if err := s.CheckSeal(&altered); !errors.As(err, &se) || se.Foreign {
		t.Fatalf("an altered event: %v, want a SealError", err)
	}
	if err := s.CheckSeal(&other); !errors.As(err, &se) || !se.Foreign {
		t.Fatalf("another writer's event: %v, want a foreign SealError", err)
	}
}
