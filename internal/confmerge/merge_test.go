package confmerge

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustDelta(t *testing.T, f Format, base, snippet string, remove ...string) Delta {
	t.Helper()
	var rm []Path
	for _, r := range remove {
		p, err := ParsePath(r)
		if err != nil {
			t.Fatal(err)
		}
		rm = append(rm, p)
	}
	d, err := SnippetDelta(f, []byte(base), snippet, rm)
	if err != nil {
		t.Fatalf("SnippetDelta(%s): %v", snippet, err)
	}
	return d
}

func keys(d Delta) string {
	var s []string
	for _, o := range d {
		s = append(s, string(o.Kind)+" "+o.Path.String())
	}
	return strings.Join(s, ", ")
}

const pkg = `{
    "name": "demo",
    "scripts": {
        "build": "tsc"
    },
    "files": ["dist"]
}
`

func TestDeltaByKeyPath(t *testing.T) {
	f := ForFile("package.json")
	d := mustDelta(t, f, pkg, `{"scripts": {"test": "bats test", "build": "tsc"}, "files": ["dist", "lib"], "name": "demo"}`, "name")
	if got := keys(d); got != "set scripts.test, append files, remove name" {
		t.Fatalf("delta = %s", got)
	}
	if d := mustDelta(t, f, pkg, `{"scripts": {"build": "tsc"}}`); len(d) != 0 {
		t.Fatalf("a snippet the base already holds changes %s", keys(d))
	}
	if got := keys(mustDelta(t, f, pkg, `{"name": {"first": "x"}}`)); got != "set name" {
		t.Fatalf("a scalar turned into an object: %s", got)
	}
	for _, bad := range []string{`{"scripts": `, `["a"]`, `{"a": 1} {"b": 2}`, `{"a": 1, "a": 2}`} {
		if _, err := SnippetDelta(f, []byte(pkg), bad, nil); err == nil {
			t.Errorf("snippet %s gave no error", bad)
		}
	}
	if _, err := SnippetDelta(f, []byte(pkg), `{"scripts": {"build": {"x": 1}}, "name": {"a": {"b": 1}}}`, []Path{{"files", "x"}}); err != nil {
		t.Fatalf("changing types and removing beneath an array: %v", err)
	}
	if _, err := SnippetDelta(f, []byte(`[1]`), `{"a": 1}`, nil); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("a base that is an array: %v", err)
	}
	if _, err := SnippetDelta(f, []byte(`{"a": 1}`), `{"a": {"b": 1}}`, []Path{{"a", "b", "c"}}); err != nil {
		t.Fatal(err)
	}
}

func TestJSONMergeKeepsOrderAndIndent(t *testing.T) {
	f := ForFile("package.json")
	d1 := mustDelta(t, f, pkg, `{"scripts": {"test": "bats test"}}`)
	d2 := mustDelta(t, f, pkg, `{"scripts": {"lint": "eslint ."}, "files": ["lib"]}`)
	if c := Collisions([]Change{{"WP1", d1}, {"WP2", d2}}); len(c) != 0 {
		t.Fatalf("distinct keys collide: %+v", c)
	}
	out, err := Merge(f, []byte(pkg), append(d1, d2...))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
    "name": "demo",
    "scripts": {
        "build": "tsc",
        "test": "bats test",
        "lint": "eslint ."
    },
    "files": [
        "dist",
        "lib"
    ]
}
`
	if string(out) != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", out, want)
	}
	// A file on one line stays on one line; <, > and & stay as they are.
	out, err = Merge(f, []byte(`{"b":1,"a":2}`), mustDelta(t, f, `{"b":1,"a":2}`, `{"c": "x && y <z>"}`))
	if err != nil || string(out) != `{"b":1,"a":2,"c":"x && y <z>"}` {
		t.Fatalf("compact: %s %v", out, err)
	}
	// A new file.
	out, err = Merge(f, nil, mustDelta(t, f, "", `{"scripts": {"test": "t"}}`))
	if err != nil || string(out) != "{\n  \"scripts\": {\n    \"test\": \"t\"\n  }\n}\n" {
		t.Fatalf("new file: %q %v", out, err)
	}
	if _, err := Merge(f, []byte(`{"a": `), d1); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("malformed base: %v", err)
	}
}

func TestCollisionsAndRename(t *testing.T) {
	f := ForFile("package.json")
	d1 := mustDelta(t, f, pkg, `{"scripts": {"test": "bats test"}}`)
	d2 := mustDelta(t, f, pkg, `{"scripts": {"test": "go test ./..."}}`)
	same := mustDelta(t, f, pkg, `{"scripts": {"test": "bats test"}}`)
	if c := Collisions([]Change{{"WP1", d1}, {"WP3", same}}); len(c) != 0 {
		t.Fatalf("the same value set twice collides: %+v", c)
	}
	c := Collisions([]Change{{"WP1", d1}, {"WP2", d2}})
	if len(c) != 1 || c[0].Key != "scripts.test" || c[0].First != "WP1" || c[0].Second != "WP2" ||
		c[0].Rename != "WP2:scripts.test=scripts.test:wp2" || c[0].SecondValue != `"go test ./..."` {
		t.Fatalf("collision = %+v", c)
	}
	// One removes what the other changes; one sets a scalar where the
	// other adds beneath it.
	rm := mustDelta(t, f, pkg, "", "scripts.build")
	ch := mustDelta(t, f, pkg, `{"scripts": {"build": "tsc -b"}}`)
	if c := Collisions([]Change{{"WP1", rm}, {"WP2", ch}}); len(c) != 1 || c[0].Rename != "WP2:scripts.build=scripts.build:wp2" {
		t.Fatalf("remove vs set: %+v", c)
	}
	scalar := mustDelta(t, f, pkg, `{"x": 1}`)
	under := mustDelta(t, f, pkg, `{"x": {"y": 2}}`)
	if c := Collisions([]Change{{"WP1", scalar}, {"WP2", under}}); len(c) != 1 || c[0].Key != "x" {
		t.Fatalf("scalar vs object: %+v", c)
	}
	empty := mustDelta(t, f, pkg, `{"contributes": {}}`)
	deeper := mustDelta(t, f, pkg, `{"contributes": {"commands": [{"command": "a"}]}}`)
	more := mustDelta(t, f, pkg, `{"contributes": {"commands": [{"command": "b"}]}}`)
	if c := Collisions([]Change{{"WP1", empty}, {"WP2", deeper}, {"WP3", more}}); len(c) != 0 {
		t.Fatalf("an empty object and two appends collide: %+v", c)
	}
	out, err := Merge(f, []byte(pkg), append(append(empty, deeper...), more...))
	if err != nil || !strings.Contains(string(out), `"command": "a"`) || !strings.Contains(string(out), `"command": "b"`) {
		t.Fatalf("appends: %s %v", out, err)
	}

	renamed, ok := d2.Rename(Path{"scripts", "test"}, Path{"scripts", "test:e2e"})
	if !ok || len(Collisions([]Change{{"WP1", d1}, {"WP2", renamed}})) != 0 {
		t.Fatalf("rename: %v %s", ok, keys(renamed))
	}
	if _, ok := d2.Rename(Path{"scripts", "build"}, Path{"x"}); ok {
		t.Fatal("a rename of a key the change does not add moved something")
	}
	out, err = Merge(f, []byte(pkg), append(d1, renamed...))
	var doc struct{ Scripts map[string]string }
	if err != nil || json.Unmarshal(out, &doc) != nil || doc.Scripts["test"] != "bats test" || doc.Scripts["test:e2e"] != "go test ./..." {
		t.Fatalf("renamed merge: %s %v", out, err)
	}
}

const cargo = `# the package
[package]
name = "demo" # its name
version = "0.1.0"

[bin]
# commands
upper = "src/upper.rs"

[dependencies]
serde = { version = "1", features = ["derive"] }
list = [
  "a",  # first
  "b",
]
`

func TestTOMLMergeKeepsComments(t *testing.T) {
	f := ForFile("Cargo.toml")
	d1 := mustDelta(t, f, cargo, "[bin]\nlower = \"src/lower.rs\"\n")
	d2 := mustDelta(t, f, cargo, "package.version = \"0.2.0\"\ntool.x.y = true\n")
	d3 := mustDelta(t, f, cargo, "dependencies.list = [\"c\"]\n", "package.name")
	d4 := mustDelta(t, f, cargo, "root = 1\n")
	out, err := Merge(f, []byte(cargo), append(append(append(d1, d2...), d3...), d4...))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# the package\nroot = 1\n[package]\nversion = \"0.2.0\"\n", "# commands\nupper = \"src/upper.rs\"\nlower = \"src/lower.rs\"\n",
		`serde = { version = "1", features = ["derive"] }`, "list = [\"a\", \"b\", \"c\"]\n", "\n[tool.x]\ny = true\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("merged TOML lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "name =") {
		t.Errorf("package.name was not removed:\n%s", out)
	}
	if _, err := SnippetDelta(f, []byte(cargo), "[bin\nx=1", nil); err == nil || !strings.Contains(err.Error(), "not valid TOML") {
		t.Fatalf("malformed snippet: %v", err)
	}
	// A key inside an inline table cannot be edited as a line: the file is
	// written whole, and still holds the merge.
	d := mustDelta(t, f, cargo, "dependencies.serde.version = \"2\"\n")
	out, whole, err := MergeText(f, []byte(cargo), d)
	if err != nil || !whole || !strings.Contains(string(out), `version = "2"`) {
		t.Fatalf("inline table: %s %v %v", out, whole, err)
	}
	if _, whole, err := MergeText(f, []byte(cargo), d1); err != nil || whole {
		t.Fatalf("a key added to a table was not edited in place: %v %v", whole, err)
	}
}

const workflow = `# CI
name: ci
on:
    push: {branches: [main]}
jobs:
    test:
        runs-on: ubuntu-latest # the runner
        steps:
            - run: make test
`

func TestYAMLMergeKeepsComments(t *testing.T) {
	f := ForFile("ci.yml")
	d1 := mustDelta(t, f, workflow, "jobs:\n  lint:\n    runs-on: ubuntu-latest\n")
	d2 := mustDelta(t, f, workflow, "jobs: {test: {steps: [{run: make e2e}]}}\n", "name")
	out, err := Merge(f, []byte(workflow), append(d1, d2...))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# CI\n", "runs-on: ubuntu-latest # the runner", "    lint:\n        runs-on: ubuntu-latest", "- run: make e2e", "push: {branches: [main]}"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("merged YAML lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "name: ci") {
		t.Errorf("name was not removed:\n%s", out)
	}
	if strings.Index(string(out), "on:") > strings.Index(string(out), "jobs:") {
		t.Errorf("key order changed:\n%s", out)
	}
	for _, bad := range []string{"a: [", "a: 1\n---\nb: 2\n", "- a\n"} {
		if _, err := SnippetDelta(f, []byte(workflow), bad, nil); err == nil {
			t.Errorf("snippet %q gave no error", bad)
		}
	}
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
	if _, err := f.Parse([]byte(bomb)); err == nil {
		t.Fatal("an alias bomb was expanded")
	}
}

// Two changes appending one element to a sequence add it once, beside
// the elements the sequence held.
func TestYAMLAppendsEachElementOnce(t *testing.T) {
	f := ForFile("ci.yml")
	base := "list: [a, 1, \"x y\"]\n"
	d1 := mustDelta(t, f, base, "list: [b, 2, \"x y\"]\n")
	d2 := mustDelta(t, f, base, "list: [b, a, 3]\n")
	out, err := Merge(f, []byte(base), append(d1, d2...))
	if want := "list: [a, 1, \"x y\", b, 2, 3]\n"; err != nil || string(out) != want {
		t.Fatalf("merged %q (%v), want %q", out, err, want)
	}
}

func TestUnifiedDiff(t *testing.T) {
	d := UnifiedDiff("package.json", []byte("{\n  \"a\": 1\n}\n"), []byte("{\n  \"a\": 1,\n  \"b\": 2\n}\n"))
	want := "--- a/package.json\n+++ b/package.json\n@@ -1,3 +1,4 @@\n {\n-  \"a\": 1\n+  \"a\": 1,\n+  \"b\": 2\n }\n"
	if d != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", d, want)
	}
	if UnifiedDiff("x", []byte("a"), []byte("a")) != "" {
		t.Fatal("no change gave a diff")
	}
}

func TestTOMLAppendsArraysOfTables(t *testing.T) {
	f := ForFile("Cargo.toml")
	base := "# bins\n[[bin]]\nname = \"upper\" # first\n\n[deps]\nx = 1\n"
	d1 := mustDelta(t, f, base, "[[bin]]\nname = \"lower\"\npath = \"src/lower.rs\"\n")
	d2 := mustDelta(t, f, base, "[[test]]\nname = \"t\"\n\n[deps]\ny = [\"a\"]\n")
	out, err := Merge(f, []byte(base), append(d1, d2...))
	want := "# bins\n[[bin]]\nname = \"upper\" # first\n\n[deps]\nx = 1\ny = [\"a\"]\n\n[[bin]]\nname = \"lower\"\npath = \"src/lower.rs\"\n\n[[test]]\nname = \"t\"\n"
	if err != nil || string(out) != want {
		t.Fatalf("merged:\n%s\nwant:\n%s\n%v", out, want, err)
	}
}
