package jsondoc

import (
	"encoding/json"
	"testing"
)

func TestStampKeepsFieldsAndOrder(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":1,"a":2}`, `{"schema":"s/v1","b":1,"a":2}`},
		{`{}`, `{"schema":"s/v1"}`},
		{`{"schema":"own/v2","x":1}`, `{"schema":"own/v2","x":1}`},
		{`[{"a":1},{"b":2}]`, `[{"schema":"s/v1","a":1},{"schema":"s/v1","b":2}]`},
		{`[]`, `[]`},
		{`"text"`, `"text"`},
		{`null`, `null`},
	} {
		got, err := Stamp([]byte(c.in), "s/v1")
		if err != nil {
			t.Fatalf("stamp(%s): %v", c.in, err)
		}
		if string(got) != c.want {
			t.Errorf("stamp(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzStamp: whatever valid JSON comes in, valid JSON comes out, and an
// object always names a schema.
func FuzzStamp(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[{"a":[1,{"b":2}]}]`, `{}`, `[]`, `1`, `null`, `[null]`, `{"schema":1}`, ` {"a" : "}"} `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		out, err := Stamp([]byte(in), "s/v1")
		if err != nil {
			t.Fatalf("stamp(%q): %v", in, err)
		}
		if !json.Valid(out) {
			t.Fatalf("stamp(%q) = %q, not JSON", in, out)
		}
		// null also decodes into a map (a nil one); only an object must
		// name its schema.
		var obj map[string]json.RawMessage
		if json.Unmarshal(out, &obj) == nil && obj != nil {
			if _, ok := obj["schema"]; !ok {
				t.Fatalf("stamp(%q) = %q has no schema", in, out)
			}
		}
	})
}

func TestWithAddsAFieldLast(t *testing.T) {
	type rec struct {
		B string `json:"b"`
		A string `json:"a"`
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{rec{"<x>", "y"}, `{"b":"<x>","a":"y","recorded":true}`},
		{struct{}{}, `{"recorded":true}`},
	} {
		got, err := With(c.in, "recorded", true)
		if err != nil || string(got) != c.want {
			t.Errorf("With(%v) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	if _, err := With([]int{1}, "recorded", true); err == nil {
		t.Error("With of a list must fail")
	}
}
