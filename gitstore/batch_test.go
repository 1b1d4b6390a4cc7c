package gitstore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadBatchRefusesWhatJSONWouldChange(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"kind":"note","id":"a","data":{"k":1,"k":2}}`, `batch line 1: the line has the key "k" twice, at $.data`},
		{`{"kind":"note","id":"a","id":"b"}`, `batch line 1: the line has the key "id" twice, at $`},
		{"\n{\"kind\":\"note\",\"id\":\"a\",\"data\":{\"t\":\"\xc3\"}}", "batch line 2: the line is not valid UTF-8 at byte 37"},
		{`{"kind":"note","id":"a","data":[1]}`, "batch line 1: data must be a JSON object"},
		{`{"kind":"note","id":"a","extra":1}`, `batch line 1: json: unknown field "extra"`},
		{`{"kind":"note"}`, `batch line 1: "kind" and "id" are required`},
		{"\n\n", "--batch read no events"},
	} {
		_, err := ReadBatch(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadBatch(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestReadBatchKeepsCanonicalData(t *testing.T) {
	in := "{\"kind\":\"note\",\"id\":\"a\",\"data\":{ \"b\" : 1, \"a\" : [2] }}\n\n{\"kind\":\"x.y\",\"id\":\"b\"}\n"
	drafts, err := ReadBatch(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(drafts) != 2 || string(drafts[0].Data) != `{"a":[2],"b":1}` || drafts[1].Data != nil || drafts[1].Kind != "x.y" {
		t.Fatalf("drafts = %+v", drafts)
	}
}

func TestValidateIDRefusesInvisibleCharacters(t *testing.T) {
	for _, id := range []string{"a\u202eb", "a\u200bb", "a\u2066b", "\ufeffa", "a\u00adb", "a\ue000b"} {
		if err := ValidateID(id); err == nil || !strings.Contains(err.Error(), "invisible or bidirectional") {
			t.Errorf("ValidateID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"wp-1", "é-ü", "日本"} {
		if err := ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v", id, err)
		}
	}
}

// FuzzReadBatch: whatever arrives on stdin, the reader either refuses it
// or returns drafts whose data is one canonical UTF-8 JSON object with no
// key twice.
func FuzzReadBatch(f *testing.F) {
	for _, s := range []string{
		`{"kind":"note","id":"a","data":{"x":1}}`,
		"{\"kind\":\"note\",\"id\":\"a\"}\n{\"kind\":\"x.b\",\"id\":\"b\",\"data\":{}}",
		`{"kind":"note","id":"a","data":{"x":{"y":[1,{"z":2}]}}}`,
		`{"kind":"note","id":"a","data":{"x":1,"x":1}}`,
		"{\"kind\":\"note\",\"id\":\"\xff\"}",
		"\n \n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		drafts, err := ReadBatch(bytes.NewReader(in))
		if err != nil {
			return
		}
		for _, d := range drafts {
			if d.Kind == "" || d.ID == "" {
				t.Fatalf("draft without kind or id: %+v", d)
			}
			if d.Data == nil {
				continue
			}
			if !utf8.Valid(d.Data) || checkStrictJSON("data", d.Data) != nil {
				t.Fatalf("data %q is not strict JSON", d.Data)
			}
			var obj map[string]json.RawMessage
			if json.Unmarshal(d.Data, &obj) != nil || obj == nil {
				t.Fatalf("data %q is not an object", d.Data)
			}
			again, err := canonicalData(d.Data)
			if err != nil || !bytes.Equal(again, d.Data) {
				t.Fatalf("data %q is not canonical: %q, %v", d.Data, again, err)
			}
		}
	})
}
