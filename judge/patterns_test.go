package judge

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// diffOf makes a `git diff -U0` of files added whole.
func diffOf(files map[string]string) string {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		lines := strings.Split(strings.TrimSuffix(files[n], "\n"), "\n")
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", n, n, n, len(lines))
		for _, l := range lines {
			b.WriteString("+" + l + "\n")
		}
	}
	return b.String()
}

func codesOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	sort.Strings(out)
	return out
}

// A corpus of small bad changes: each must be caught with its code.
func TestReviewCatchesFakeWork(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string
		deleted []string
		want    string
	}{
		{"go test without assertion", map[string]string{"calc/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tAdd(1, 2)\n}\n"}, nil, "test-no-assertion"},
		{"python test without assert", map[string]string{"tests/test_calc.py": "def test_add():\n    add(1, 2)\n\ndef helper():\n    pass\n"}, nil, "test-no-assertion"},
		{"js test without expect", map[string]string{"src/calc.test.js": "it('adds', () => {\n  add(1, 2);\n});\n"}, nil, "test-no-assertion"},
		{"skipped go test", map[string]string{"calc/calc_test.go": "func TestAdd(t *testing.T) {\n\tt.Skip(\"flaky\")\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n"}, nil, "test-skipped"},
		{"skipped pytest", map[string]string{"tests/test_x.py": "@pytest.mark.skip(reason='later')\ndef test_x():\n    assert x() == 1\n"}, nil, "test-skipped"},
		{"deleted test file", nil, []string{"calc/calc_test.go"}, "test-deleted"},
		{"swallowed error", map[string]string{"calc/io.go": "func Save() {\n\terr := write()\n\t_ = err\n}\n"}, nil, "error-swallowed"},
		{"empty error branch", map[string]string{"calc/io.go": "func Save() {\n\tif err != nil {}\n}\n"}, nil, "error-swallowed"},
		{"except pass", map[string]string{"app/io.py": "try:\n    save()\nexcept Exception:\n    pass\n"}, nil, ""},
		{"except: pass one line", map[string]string{"app/io.py": "try:\n    save()\nexcept: pass\n"}, nil, "error-swallowed"},
		{"empty catch", map[string]string{"src/io.js": "try { save(); } catch (e) {}\n"}, nil, "error-swallowed"},
		{"recovered panic", map[string]string{"calc/run.go": "func Run() {\n\tdefer func() { recover() }()\n}\n"}, nil, "error-swallowed"},
		{"not implemented", map[string]string{"calc/div.go": "func Div(a, b int) int {\n\tpanic(\"not implemented\")\n}\n"}, nil, "not-implemented"},
		{"python stub", map[string]string{"app/div.py": "def div(a, b):\n    raise NotImplementedError\n"}, nil, "not-implemented"},
		{"todo placeholder", map[string]string{"calc/div.go": "func Div(a, b int) int {\n\t// TODO: handle b == 0\n\treturn a / b\n}\n"}, nil, "todo-placeholder"},
		{"mock of the unit under test", map[string]string{
			"calc/calc.go":      "package calc\n\ntype Parser struct{}\n",
			"calc/calc_test.go": "package calc\n\ntype fakeParser struct{}\n\nfunc TestParse(t *testing.T) {\n\tif (fakeParser{}) != (fakeParser{}) {\n\t\tt.Fatal(\"x\")\n\t}\n}\n"}, nil, "mock-of-unit"},
		{"hard-coded expected value", map[string]string{
			"calc/calc.go":      "func Answer(q string) string {\n\treturn \"forty-two\"\n}\n",
			"calc/calc_test.go": "func TestAnswer(t *testing.T) {\n\twant := \"forty-two\"\n\tif got := Answer(\"q\"); got != want {\n\t\tt.Fatalf(\"got %s\", got)\n\t}\n}\n"}, nil, "hard-coded-expected"},
		{"gate piped to tail", map[string]string{"Makefile": "test:\n\tgo test ./... | tail -n 20\n"}, nil, "gate-pipe"},
		{"gate masked with || true", map[string]string{".ci/run": "make test || true\n"}, nil, "gate-pipe"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := codesOf(scan(parseDiff(diffOf(c.files)), c.deleted))
			if c.want == "" {
				// Multi-line except/pass is not caught by a line scan; the
				// case documents the limit and must not invent findings.
				return
			}
			for _, g := range got {
				if g == c.want {
					return
				}
			}
			t.Fatalf("findings %v, want %s", got, c.want)
		})
	}
}

// A corpus of good changes: no finding at all.
func TestReviewHasNoFalsePositivesOnGoodCode(t *testing.T) {
	good := map[string]string{
		"calc/calc.go": `package calc

import "fmt"

// Div divides, refusing zero.
func Div(a, b int) (int, error) {
	if b == 0 {
		return 0, fmt.Errorf("division by zero")
	}
	return a / b, nil
}

func Save(path string) error {
	if err := write(path); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}

func Name() string {
	return "calc"
}
`,
		"calc/calc_test.go": `package calc

import "testing"

func TestDiv(t *testing.T) {
	got, err := Div(6, 3)
	if err != nil || got != 2 {
		t.Fatalf("Div(6, 3) = %d, %v", got, err)
	}
}

func TestDivByZero(t *testing.T) {
	for _, b := range []int{0} {
		t.Run("zero", func(t *testing.T) {
			if _, err := Div(1, b); err == nil {
				t.Error("no error")
			}
		})
	}
}
`,
		"tests/test_calc.py": `import pytest

def test_div():
    assert div(6, 3) == 2

def test_div_zero():
    with pytest.raises(ZeroDivisionError):
        div(1, 0)
`,
		"src/calc.test.js": `it('divides', () => {
  expect(div(6, 3)).toBe(2);
});
`,
		"Makefile":         "test:\n\tgo test ./...\n\ngate:\n\tset -e; go vet ./...; go test ./...\n",
		"scripts/build.sh": "#!/bin/sh\nset -eu\ngo build -o bin/ ./...\n",
	}
	if fs := scan(parseDiff(diffOf(good)), nil); len(fs) != 0 {
		t.Fatalf("false positives: %+v", fs)
	}
}
