package confmerge

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
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

// Equal's walk of two plain trees agrees with their canonical forms.
func TestEqualIsCanon(t *testing.T) {
	o1, o2, o3 := NewObj(), NewObj(), NewObj()
	o1.Set("a", 1)
	o1.Set("b", []any{"x"})
	o2.Set("b", []any{"x"})
	o2.Set("a", 1.0)
	o3.Set("a", int64(1))
	vals := []any{"a", "1", "\u003c", "<", "\xff", 1, 1.0, 1.5, float32(1.5), int64(1), uint64(1), 1e21, 1e20, int64(1e18), math.Copysign(0, -1), 0,
		math.Inf(1), true, false, nil, "", []any{}, []any{1}, []any{1.0}, []any{"1"}, []any{[]any{}}, NewObj(), o1, o2, o3,
		json.Number("1"), time.Unix(0, 0)}
	for _, a := range vals {
		for _, b := range vals {
			if got, want := Equal(a, b), canon(a) == canon(b); got != want {
				t.Errorf("Equal(%#v, %#v) = %v, canonical forms say %v", a, b, got, want)
			}
		}
	}
}

// scalarNode's shortcut makes the node Node.Encode would, and declines
// every value whose text the encoder would have to quote.
func TestScalarNodeIsWhatEncodeMakes(t *testing.T) {
	for _, v := range []any{
		"item-1", "a.b/c_d", "Z9", "yes", "No", "ON", "y", "TRUE", "Null", "null", "~",
		"1", "1.5", "0x1F", "1:20", ".inf", "-", "a b", "a: b", "a#b", "é", "", "line\nbreak",
		true, false, 0, -7, int64(1) << 40, nil, 1.5,
	} {
		var want yaml.Node
		if err := want.Encode(v); err != nil {
			t.Fatal(err)
		}
		got := scalarNode(v)
		if got == nil {
			continue
		}
		if s, ok := v.(string); ok && want.Style != 0 {
			t.Errorf("%q: the encoder quotes it, the shortcut writes it plain", s)
		}
		if got.Kind != want.Kind || got.Tag != want.Tag || got.Value != want.Value || got.Style != want.Style {
			t.Errorf("%#v: shortcut %+v, encoder %+v", v, *got, want)
		}
	}
}

// fromNode's shortcut for strings reads what Node.Decode reads.
func TestFromNodeReadsStringsAsDecode(t *testing.T) {
	doc, err := readYAML([]byte("a:\n- x\n- 'y'\n- \"1\"\n- !!str 2\n- |\n  text\n- \"\"\n- plain words\n- 3\n- ~\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range doc.Content[0].Content[1].Content {
		var want any
		if err := n.Decode(&want); err != nil {
			t.Fatal(err)
		}
		budget := 10
		got, err := fromNode(n, &budget)
		if err != nil || got != want {
			t.Errorf("%q: fromNode %#v (%v), Decode %#v", n.Value, got, err, want)
		}
	}
}

// MergeText, which reads a YAML text once, writes what Render writes from
// a text of its own.
func TestYAMLRenderIsMergeText(t *testing.T) {
	f := yamlFormat{}
	d := mustDelta(t, f, workflow, "jobs: {test: {steps: [{run: make e2e}]}, lint: {runs-on: x}}\n", "name")
	doc, err := f.Parse([]byte(workflow))
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := f.Render([]byte(workflow), doc, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := MergeText(f, []byte(workflow), d)
	if err != nil || string(got) != string(want) {
		t.Fatalf("MergeText:\n%s(%v)\nRender:\n%s", got, err, want)
	}
}
