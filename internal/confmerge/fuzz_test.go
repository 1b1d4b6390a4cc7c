package confmerge

import (
	"encoding/json"
	"testing"
)

// leafPaths lists the key path of every leaf of doc.
func leafPaths(doc any) []Path {
	var out []Path
	var walk func(Path, any)
	walk = func(p Path, v any) {
		if o, ok := v.(*Obj); ok && len(o.Keys) > 0 {
			for _, k := range o.Keys {
				walk(p.child(k), o.M[k])
			}
			return
		}
		if len(p) > 0 {
			out = append(out, p)
		}
	}
	walk(nil, doc)
	return out
}

// FuzzJSONMerge: two snippets laid over a valid JSON object, when they do
// not collide, merge into valid JSON that holds every key of the base and
// every key either snippet sets, with the value it sets.
func FuzzJSONMerge(f *testing.F) {
	f.Add(pkg, `{"scripts": {"test": "t"}}`, `{"scripts": {"lint": "l"}, "files": ["x"]}`)
	f.Add(`{"a": [1, {"b": null}], "c": "\u00e9"}`, `{"a": [2]}`, `{"d": {"e": {}}}`)
	f.Add(`{}`, `{"x": 1}`, `{"x": 1}`)
	f.Add(`{"a":1}`, `{"a": {"b": true}}`, `{"c": -0.5e3}`)
	jf := jsonFormat{}
	f.Fuzz(func(t *testing.T, base, s1, s2 string) {
		doc, err := jf.Parse([]byte(base))
		if _, isObj := doc.(*Obj); err != nil || !isObj {
			return
		}
		d1, err1 := SnippetDelta(jf, []byte(base), s1, nil)
		d2, err2 := SnippetDelta(jf, []byte(base), s2, nil)
		if err1 != nil || err2 != nil {
			return
		}
		if len(Collisions([]Change{{"WP1", d1}, {"WP2", d2}})) > 0 {
			return
		}
		out, err := Merge(jf, []byte(base), append(append(Delta{}, d1...), d2...))
		if err != nil {
			t.Fatalf("merge failed: %v\nbase %s\n1: %s\n2: %s", err, base, s1, s2)
		}
		if len(d1)+len(d2) == 0 {
			if string(out) != base {
				t.Fatalf("no change, yet the text changed:\n%s", out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("merged text is not JSON:\n%s", out)
		}
		got, err := jf.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		replaced := func(p Path) bool { // a snippet gave an ancestor another type
			for _, o := range append(append(Delta{}, d1...), d2...) {
				if len(o.Path) < len(p) && p.HasPrefix(o.Path) {
					return true
				}
			}
			return false
		}
		for _, p := range leafPaths(doc) {
			if _, ok := Lookup(got, p); !ok && !replaced(p) {
				t.Fatalf("base key %s lost:\n%s", p, out)
			}
		}
		for _, d := range []Delta{d1, d2} {
			for _, o := range d {
				v, ok := Lookup(got, o.Path)
				switch {
				case !ok:
					t.Fatalf("key %s the snippet sets is missing:\n%s", o.Path, out)
				case o.Kind == Set && !isObj(o.Value) && !Equal(v, o.Value):
					t.Fatalf("key %s = %s, the snippet set %s", o.Path, canon(v), canon(o.Value))
				case o.Kind == Append:
					for _, e := range o.Value.([]any) {
						if !holds(v.([]any), e) {
							t.Fatalf("key %s lacks the appended %s", o.Path, canon(e))
						}
					}
				}
			}
		}
	})
}

func isObj(v any) bool { _, ok := v.(*Obj); return ok }

// fuzzFormat: a snippet that fits a valid document merges into text that
// reads back as exactly the merge (Merge checks that itself), and a merge
// with no change leaves the text as it was.
func fuzzFormat(t *testing.T, f Format, base, snippet string) {
	doc, err := f.Parse([]byte(base))
	if _, isObj := doc.(*Obj); err != nil || !isObj {
		return
	}
	d, err := SnippetDelta(f, []byte(base), snippet, nil)
	if err != nil {
		return
	}
	out, err := Merge(f, []byte(base), d)
	if err != nil {
		t.Fatalf("merge failed: %v\nbase:\n%s\nsnippet:\n%s", err, base, snippet)
	}
	if len(d) == 0 && string(out) != base {
		t.Fatalf("no change, yet the text changed:\n%s", out)
	}
}

func FuzzTOMLMerge(f *testing.F) {
	f.Add(cargo, "[bin]\nlower = \"src/lower.rs\"\n")
	f.Add(cargo, "dependencies.list = [\"c\"]\npackage.version = \"2\"\n")
	f.Add("a = 1 # one\n[t]\nb = 'x'\n[[arr]]\nc = 1\n", "t.d = 2\nz = {q = 1}\n")
	f.Fuzz(func(t *testing.T, base, snippet string) { fuzzFormat(t, tomlFormat{}, base, snippet) })
}

func FuzzYAMLMerge(f *testing.F) {
	f.Add(workflow, "jobs:\n  lint:\n    runs-on: x\n")
	f.Add("a: &x {b: 1}\nc: *x\n# end\n", "c: {d: [1, 2]}\n")
	f.Fuzz(func(t *testing.T, base, snippet string) { fuzzFormat(t, yamlFormat{}, base, snippet) })
}

// holds is membership by Equal, pair by pair: the oracle the merge's
// canonical-form set is checked against.
func holds(arr []any, e any) bool {
	for _, x := range arr {
		if Equal(x, e) {
			return true
		}
	}
	return false
}
