package judge

import (
	"strings"
	"testing"
)

func TestMutateLine(t *testing.T) {
	cases := []struct {
		fam  family
		line string
		want []string // the mutated lines, in order
	}{
		{pyFamily, "    return a + b", []string{"    return None", "    return a - b", "    pass"}},
		{pyFamily, "    if n > 0:", []string{"    if not (n > 0):", "    if n <= 0:"}},
		{pyFamily, `    log("a - b")  # a + b`, []string{"    pass"}},
		{jsFamily, "  if (a === b) {", []string{"  if (!(a === b)) {", "  if (a !== b) {"}},
		{jsFamily, "  return xs.length;", []string{"  return undefined;", "  "}},
		{shFamily, `echo "$((0 - $1))"`, []string{"echo 0", `echo "$((0 + $1))"`, ":"}},
		{shFamily, `[ "$a" = 5 ] && exit 0`, []string{`[ "$a" != 5 ] && exit 0`, `[ "$a" = 5 ] || exit 0`, ":"}},
		{shFamily, "sort > out.txt", []string{":"}},
		{cFamily, "  x = y * 2;", []string{"  x = y / 2;", "  "}},
		{otherFamily, "timeout = 5", nil},
		{pyFamily, "# only a comment", nil},
		{pyFamily, "def f(a, b):", nil},
	}
	for _, c := range cases {
		var got []string
		for _, m := range mutateLine(c.fam, 1, c.line) {
			got = append(got, m.to)
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s %q:\n got %q\nwant %q", c.fam.name, c.line, got, c.want)
		}
	}
}

func TestFamilyOf(t *testing.T) {
	for name, want := range map[string]string{"a.py": "python", "x/neg.sh": "shell", "lib.mjs": "js", "m.awk": "awk", "tool": "shell", "README.md": "", "conf.toml": "", "data.json": ""} {
		first := ""
		if name == "tool" {
			first = "#!/bin/sh"
		}
		f, ok := familyOf(name, first)
		if got := f.name; ok != (want != "") || got != want {
			t.Errorf("familyOf(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{"checks/neg.check": true, "tests/x.sh": true, "calc/neg.sh": false, "lib.js": false, "test/a.test.js": true, "src/e2e/run.py": true} {
		if isTestPath(p) != want {
			t.Errorf("isTestPath(%s) = %v", p, !want)
		}
	}
}
