package confmerge

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
)

// Each shortcut here gives what the general path it skips gives.

// canon writes what json.Marshal of the tagged plain tree writes, so that
// Equal keeps the meaning it had.
func TestCanonIsJSONOfPlain(t *testing.T) {
	obj := NewObj()
	obj.Set("z", []any{"a<b>&c", "é", "\x00\n\t", "\xff", `q"\`, "\u2028", ""})
	obj.Set("a", NewObj())
	obj.Set("<k>", []any{true, false, nil, 1, int64(-2), math.MaxInt, int64(math.MinInt64), uint8(3), 1.5, 1e21, json.Number("3.0"), time.Unix(0, 0).UTC()})
	obj.Set("m", []any{[]any{}, map[string]any{"x": 1}})
	for _, v := range []any{obj, []any{}, "s", nil, 7, []any{math.NaN()}} {
		want := fmt.Sprintf("%#v", v)
		if b, err := json.Marshal(plain(v, true)); err == nil {
			want = string(b)
		}
		if got := canon(v); got != want {
			t.Errorf("canon(%#v)\n got %s\nwant %s", v, got, want)
		}
	}
}

// Two elements have one set key exactly when Equal holds them the same.
func TestKeyOfIsEqual(t *testing.T) {
	vals := []any{"a", "\xff", "\xfe", "\ufffd", "\xff\xfe", "\ufffd\ufffd", `\ufffd`, "<", `\u003c`, "1", 1, 1.0, int64(1), json.Number("1"), true, "true", nil, "", []any{"a"}, []any{}, NewObj()}
	for _, a := range vals {
		for _, b := range vals {
			if (keyOf(a) == keyOf(b)) != Equal(a, b) {
				t.Errorf("%#v and %#v: same key %v, Equal %v", a, b, keyOf(a) == keyOf(b), Equal(a, b))
			}
		}
	}
}
