package judge

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// Each Python trick is found, and its honest twin is not.
func TestPythonJudgeTricks(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	const head = "import unittest\nfrom unittest import mock\nimport calc\n\n\nclass T(unittest.TestCase):\n    def test_it(self):\n"
	cases := []struct {
		name, file, src, want string
	}{
		{"self-compare", "tests/test_a.py", head + "        self.assertEqual(calc.f(1), calc.f(1))\n", "assertion-cannot-fail"},
		{"compare with a value", "tests/test_a.py", head + "        self.assertEqual(calc.f(1), calc.f(2))\n", ""},
		{"assertTrue with an expected value", "tests/test_a.py", head + "        self.assertTrue(calc.f(3), 12)\n", "assertion-misused"},
		{"assertTrue with a message", "tests/test_a.py", head + "        self.assertTrue(calc.f(3), \"f(3) holds\")\n", ""},
		{"assertRaises(Exception)", "tests/test_a.py", head + "        with self.assertRaises(Exception):\n            calc.f('x')\n", "assertion-too-broad"},
		{"assertRaises(ValueError)", "tests/test_a.py", head + "        with self.assertRaises(ValueError):\n            calc.f('x')\n", ""},
		{"patch.object of the unit", "tests/test_a.py", head + "        with mock.patch.object(calc, \"f\", return_value=2):\n            self.assertEqual(calc.f(1), 2)\n", "mock-of-unit"},
		{"patch.object of a dependency", "tests/test_a.py", head + "        with mock.patch.object(calc.time, \"time\", return_value=2):\n            self.assertEqual(calc.f(1), 3)\n", ""},
		{"broad except returns 0.0", "calc.py", "def f(p):\n    try:\n        return 1 / p\n    except Exception:\n        return 0.0\n", "error-swallowed"},
		{"narrow except returns 0.0", "calc.py", "def f(p):\n    try:\n        return 1 / p\n    except ZeroDivisionError:\n        return 0.0\n", ""},
		{"broad except re-raises", "calc.py", "def f(p):\n    try:\n        return 1 / p\n    except Exception as e:\n        raise ValueError(p) from e\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := writeTree(t, map[string]string{})
			dir := writeTree(t, map[string]string{c.file: c.src})
			fs, _ := pyFindings(context.Background(), base, dir, []string{c.file})
			if got := codes(fs); !strings.Contains(got, c.want) || c.want == "" && got != "" {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
}

// A test the change defines is found uncollected only when the runner
// ran Python tests and none of its names.
func TestUncollectedPythonTests(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	src := "import unittest\n\n\nclass Cases:\n    def test_zero(self):\n        pass\n\n\nclass T(Cases, unittest.TestCase):\n    def test_one(self):\n        pass\n\n\nclass Loose:\n    def test_two(self):\n        pass\n"
	base := writeTree(t, map[string]string{})
	dir := writeTree(t, map[string]string{"tests/test_a.py": src})
	_, defined := pyFindings(context.Background(), base, dir, []string{"tests/test_a.py"})
	heard := testResults{"py:T.test_zero": "pass", "py:T.test_one": "pass"}
	fs := uncollected(defined, heard)
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Message, "Loose.test_two") || fs[0].File != "tests/test_a.py" {
		t.Fatalf("uncollected = %v, want Loose.test_two alone, with its file", fs)
	}
	if fs := uncollected(defined, testResults{"pytest:tests/test_a.py::T::test_one": "pass", "pytest:tests/test_a.py::T::test_zero": "pass"}); len(fs) != 1 {
		t.Fatalf("pytest ids: %v", fs)
	}
	if fs := uncollected(defined, testResults{"go:m.TestX": "pass"}); len(fs) != 0 {
		t.Fatalf("a gate that runs no Python test judges none: %v", fs)
	}
}

// An expected failure at the head is no pass, and the finding names the
// file the runner reported.
func TestExpectedFailureIsNoPass(t *testing.T) {
	base := testRun{results: testResults{"py:T.test_add": "pass"}, files: map[string]string{"py:T.test_add": "tests/test_a.py"}}
	head := testRun{results: testResults{"py:T.test_add": "xfail"}, files: map[string]string{}}
	fs := compareTests(base, head, nil)
	if len(fs) != 1 || fs[0].Code != "test-skipped" || fs[0].File != "tests/test_a.py" {
		t.Fatalf("findings %v, want test-skipped in tests/test_a.py", fs)
	}
}
