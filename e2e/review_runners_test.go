package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The executed-tests comparison hears pytest, jest and vitest: a gate
// that exits 0 while the runner's tests fail (`|| true`) is rejected,
// naming the failing test, and the honest twin passes.

func runnerCase(t *testing.T, gate, archive string) {
	t.Helper()
	c := corpusCase{name: t.Name(), lang: "runner", gate: gate, ar: txtar.Parse([]byte(archive))}
	r, rejected, _ := reviewVariantResult(t, c, "bad")
	masked := ""
	for _, f := range r.Findings {
		if f.Code == "gate-masks-failure" {
			masked = f.Message
		}
	}
	if !rejected || !strings.Contains(masked, "adds") {
		t.Fatalf("a gate that hides a failing test passed review (gate-masks-failure: %q): %+v", masked, r.Findings)
	}
	if _, rejected, _ := reviewVariantResult(t, c, "clean"); rejected {
		t.Fatal("the honest twin was rejected")
	}
}

// pythonWithPytest finds a python3 that can import pytest.
func pythonWithPytest(t *testing.T) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import pytest").Run() == nil {
			return p
		}
	}
	t.Skip("no python3 with pytest (apt-get install python3-pytest)")
	return ""
}

func TestReviewHearsPytest(t *testing.T) {
	py := pythonWithPytest(t)
	runnerCase(t, py+" -m pytest -q -p no:cacheprovider || true", `
-- base/calc.py --
def add(a, b):
    return a + b
-- base/test_calc.py --
from calc import add

def test_adds():
    assert add(2, 3) == 5
-- bad/calc.py --
def add(a, b):
    return a - b
-- clean/calc.py --
def add(a, b):
    return b + a
`)
}

// realJSRunner finds jest or vitest where make test-agents installs the
// pinned tools.
func realJSRunner(t *testing.T, name string) string {
	dir := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if dir == "" {
		t.Skip("AGENTPROTO_REAL_AGENTS is not set (make test-agents sets it)")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed in %s", name, dir)
	}
	return p
}

const jsRunnerTree = `
-- base/package.json --
{"name":"calc","private":true}
-- base/calc.js --
exports.add = (a, b) => a + b;
-- base/calc.test.js --
const { add } = require("./calc.js");

test("adds", () => {
  expect(add(2, 3)).toBe(5);
});
-- bad/calc.js --
exports.add = (a, b) => a - b;
-- clean/calc.js --
exports.add = (a, b) => b + a;
`

func TestReviewHearsJestReal(t *testing.T) {
	jest := realJSRunner(t, "jest")
	runnerCase(t, jest+" --ci || true", jsRunnerTree)
}

func TestReviewHearsVitestReal(t *testing.T) {
	vitest := realJSRunner(t, "vitest")
	runnerCase(t, vitest+" run --globals || true", jsRunnerTree)
}
