package storetest

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
)

// An id prefix reads one subject's events, in the same order, and
// combines with kinds and a limit; "a/b" is not under "a/b/". FoldPrefix
// folds them alone.
func testIDPrefix(t *testing.T, s UserStore) {
	for i, id := range []string{"a/b/1", "a/bc/1", "a/b/2", "a/b", "z/a/b/3", "a/b/3"} {
		k := item
		if i == 2 {
			k = other
		}
		record(t, s, k, id, 10+i)
	}
	for _, c := range []struct {
		q    gitstore.Query
		want string
	}{
		{gitstore.Query{IDPrefix: "a/b/"}, "a/b/3,a/b/2,a/b/1"},
		{gitstore.Query{IDPrefix: "a/b/", Reverse: true}, "a/b/1,a/b/2,a/b/3"},
		{gitstore.Query{IDPrefix: "a/b"}, "a/b/3,a/b,a/b/2,a/bc/1,a/b/1"},
		{gitstore.Query{IDPrefix: "a/b/", Kinds: []string{"storetest_item"}}, "a/b/3,a/b/1"},
		{gitstore.Query{IDPrefix: "a/b/", Kinds: []string{"storetest_other"}, Reverse: true}, "a/b/2"},
		{gitstore.Query{IDPrefix: "a/b/", Kinds: []string{"note"}}, ""},
		{gitstore.Query{IDPrefix: "a/b/", Limit: 1, Reverse: true}, "a/b/1"},
		{gitstore.Query{IDPrefix: "nothing/"}, ""},
	} {
		if got := ids(t, s, c.q); got != c.want {
			t.Errorf("%+v: %q, want %q", c.q, got, c.want)
		}
	}
	record(t, s, item, "g/1", 1000)
	record(t, s, item, "g/2", 2000)
	record(t, s, item, "gg/3", 4000)
	some := &tally{}
	if _, err := gitstore.FoldPrefix(s, "g/", some, gitstore.On(item, func(st *tally, e *gitstore.Event, d Item) {
		st.sum += d.N
		st.order = append(st.order, e.ID)
	})); err != nil {
		t.Fatal(err)
	}
	if some.sum != 3000 || strings.Join(some.order, ",") != "g/1,g/2" {
		t.Fatalf("fold under g/ = %+v, want g/1 and g/2, oldest first", some)
	}
}
