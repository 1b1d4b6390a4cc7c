package judge

import (
	"testing"
)

// compareTests: a body that moved under another name is the same test
// only when that name passed at the head; a gate heard running tests at
// the base and none at the head is a finding.
func TestCompareTests(t *testing.T) {
	run := func(gate string, heard int, results testResults, same map[string]string) testRun {
		return testRun{gate: Gate{Command: gate}, heard: heard, results: results, same: same}
	}
	base := run("go test ./...", 2, testResults{"go:m.TestA": "pass", "go:m.TestB": "pass"}, map[string]string{"hA": "go:m.TestA", "hB": "go:m.TestB"})
	cases := []struct {
		name string
		head testRun
		want string
	}{
		{"renamed and passing", run("go test ./...", 2, testResults{"go:m.TestA2": "pass", "go:m.TestB": "pass"}, map[string]string{"hA": "go:m.TestA2", "hB": "go:m.TestB"}), ""},
		{"renamed into a file never built", run("go test ./...", 1, testResults{"go:m.TestB": "pass"}, map[string]string{"hA": "go:m.TestA2", "hB": "go:m.TestB"}), "test-lost"},
		{"renamed and skipped", run("go test ./...", 2, testResults{"go:m.TestA2": "skip", "go:m.TestB": "pass"}, map[string]string{"hA": "go:m.TestA2", "hB": "go:m.TestB"}), "test-lost"},
		{"gate runs no tests", run("echo skipped", 0, testResults{"go:m.TestA": "pass", "go:m.TestB": "pass"}, map[string]string{"hA": "go:m.TestA", "hB": "go:m.TestB"}), "gate-runs-no-tests"},
		{"no gate", run("", 0, testResults{"go:m.TestA": "pass", "go:m.TestB": "pass"}, map[string]string{}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := codes(compareTests(base, c.head, nil)); got != c.want {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
	// A base gate heard running nothing (a runner review cannot hear) is
	// no evidence that the head's gate stopped.
	quiet := run("make check", 0, base.results, base.same)
	if got := codes(compareTests(quiet, run("make check", 0, base.results, base.same), nil)); got != "" {
		t.Errorf("a gate never heard: findings %q", got)
	}
}

// A test file renamed (git's rename detection) keeps its tests when their
// ids under the new path pass at the head; under a path the runner does
// not collect, they are lost.
func TestCompareTestsFollowsFileRenames(t *testing.T) {
	base := testRun{results: testResults{"pytest:tests/test_calc.py::test_adds": "pass", "js:a.test.js > adds": "pass", "bats:t/a.bats:lowers": "pass"}}
	renames := map[string]string{"tests/test_calc.py": "tests/test_arith.py", "a.test.js": "b.test.js", "t/a.bats": "t/b.bats"}
	head := testRun{results: testResults{"pytest:tests/test_arith.py::test_adds": "pass", "js:b.test.js > adds": "pass", "bats:t/b.bats:lowers": "pass"}}
	if got := codes(compareTests(base, head, renames)); got != "" {
		t.Errorf("renamed files: findings %q", got)
	}
	off := map[string]string{"tests/test_calc.py": "tests/calc_checks.py", "a.test.js": "b.test.js", "t/a.bats": "t/b.bats"}
	if got := codes(compareTests(base, head, off)); got != "test-lost" {
		t.Errorf("renamed off the runner's pattern: findings %q, want test-lost", got)
	}
}
