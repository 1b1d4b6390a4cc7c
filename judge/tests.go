package judge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Review judges the tests a change runs from what the test runners report,
// not from the text of the change: the gate is run on the base and on the
// head with the runners' machine-readable reporters switched on, Go
// packages are run with `go test -json`, shell tests (*_test.sh) are run
// one by one, and the two sets of results are compared.
//
// The hooks: Python's unittest records each result through a
// sitecustomize module put first on PYTHONPATH, and pytest through a
// plugin beside it (runners.go); node's test runner loads a reporter
// through NODE_OPTIONS that appends every run's results (runners.go); jest and vitest write their JSON results
// when the gate runs them directly. Any other runner can append JSON
// lines {"id": ..., "outcome": "pass"|"fail"|"skip"} to the file named by
// AGENTPROTO_TESTLOG. The Go test binaries and shell tests the gate runs
// itself are heard as well (gatehooks.go), so a gate that stops running
// tests is seen even where review runs them on its own.

// testResults maps a test's id to its outcome: pass, fail, skip, or
// xfail (a failure the test expects: it passes the run and proves
// nothing).
type testResults map[string]string

// testRun is one tree's gate run and what its tests did.
type testRun struct {
	gate    Gate
	results testResults
	// same maps a shell test's content hash to its id, so a renamed
	// test is still the same test.
	same map[string]string
	// heard is how many tests the gate itself was heard to run.
	heard int
	// files maps a test's id to its file, relative to the tree, where
	// its runner said.
	files map[string]string
}

const pySiteHook = `import json, os, sys, unittest.result as _r
_log = os.environ.get("AGENTPROTO_TESTLOG")
def _wrap(name, outcome):
    orig = getattr(_r.TestResult, name)
    def rec(self, test, *args):
        try:
            src = getattr(sys.modules.get(type(test).__module__), "__file__", None) or ""
            with open(_log, "a") as f:
                f.write(json.dumps({"id": "py:" + ".".join(test.id().split(".")[-2:]), "outcome": outcome, "file": src}) + "\n")
        except OSError as e:
            sys.stderr.write("agentproto: cannot record a test result: %s\n" % e)
        return orig(self, test, *args)
    setattr(_r.TestResult, name, rec)
if _log:
    for _n, _o in (("addSuccess", "pass"), ("addFailure", "fail"), ("addError", "fail"), ("addSkip", "skip"),
                   ("addExpectedFailure", "xfail"), ("addUnexpectedSuccess", "fail")):
        _wrap(_n, _o)
`

// runTests runs the gate in dir with the reporters on, then the Go and
// shell tests of the tree.
func runTests(ctx context.Context, dir, gate string) (testRun, error) {
	tr := testRun{results: testResults{}, same: map[string]string{}, files: map[string]string{}}
	hooks, err := os.MkdirTemp("", "agentproto-hooks-")
	if err != nil {
		return tr, err
	}
	defer os.RemoveAll(hooks)
	if err := os.WriteFile(filepath.Join(hooks, "sitecustomize.py"), []byte(pySiteHook), 0o644); err != nil {
		return tr, err
	}
	logFile := filepath.Join(hooks, "tests.jsonl")
	env := []string{
		"AGENTPROTO_TESTLOG=" + logFile,
		"PYTHONPATH=" + joinList(hooks, os.Getenv("PYTHONPATH")),
	}
	renv, err := runnerEnv(hooks)
	if err != nil {
		return tr, err
	}
	env = append(env, renv...)
	if gate != "" {
		genv, err := gateHooks(hooks)
		if err != nil {
			return tr, err
		}
		jsonFile := filepath.Join(hooks, "js-results.json")
		// The reporters write into hooks from inside the tests' own
		// processes: writable, like anything a test could print.
		tr.gate, _ = runEnv(ctx, dir, withJSReporter(gate, jsonFile), append(env, genv...), hooks)
		tr.gate.Command = gate // the gate as given, whatever reporter review added
		heard := testResults{}
		readTestLog(logFile, dir, heard, tr.files)
		readJestJSON(jsonFile, dir, heard)
		readGoExec(filepath.Join(hooks, "go"), dir, heard)
		shellIDs(dir, heard)
		tr.heard = len(heard)
		for id, out := range heard {
			tr.results.record(id, out)
		}
	}
	goTestBodies(dir, tr.same)
	if err := goTests(ctx, dir, tr.results); err != nil {
		return tr, err
	}
	shellTests(ctx, dir, tr)
	batsTests(ctx, dir, tr)
	return tr, nil
}

func joinList(a, b string) string {
	if b == "" {
		return a
	}
	return a + string(os.PathListSeparator) + b
}

// runEnv is RunGate with extra environment and writable places, its
// output whole.
func runEnv(ctx context.Context, dir, command string, extra []string, writable ...string) (Gate, []byte) {
	return runGate(ctx, dir, command, extra, writable)
}

// record keeps the worst outcome of a test seen more than once.
func (r testResults) record(id, outcome string) {
	rank := map[string]int{"pass": 1, "skip": 2, "xfail": 2, "fail": 3}
	if rank[outcome] > rank[r[id]] {
		r[id] = outcome
	}
}

// readTestLog reads the JSON lines the hooks append: id, outcome and,
// where the runner knows it, the test's file (absolute, or relative to
// dir).
func readTestLog(path, dir string, r testResults, files map[string]string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e struct{ ID, Node, Outcome, File string }
		if json.Unmarshal(l, &e) != nil || e.ID == "" && e.Node == "" {
			continue
		}
		rel := ""
		if e.File != "" {
			if !filepath.IsAbs(e.File) {
				e.File = filepath.Join(dir, e.File)
			}
			rel, _ = inTree(dir, e.File)
		}
		if e.Node != "" { // node's runner names a test within its file
			if e.Node == e.File {
				continue // the file itself, as a test: its tests are heard
			}
			e.ID = "js:" + e.Node
			if rel != "" {
				e.ID = "js:" + rel + " > " + e.Node
			}
		}
		r.record(e.ID, e.Outcome)
		if rel != "" {
			files[e.ID] = rel
		}
	}
}

// goTests runs `go test -json` on every package of the module at the top
// of dir, when there is one with tests.
func goTests(ctx context.Context, dir string, r testResults) error {
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return nil
	}
	if !hasFile(dir, func(p string) bool { return strings.HasSuffix(p, "_test.go") }) {
		return nil
	}
	var out bytes.Buffer
	// Failing tests are read from the events, not the exit code; the
	// events come through a pipe, not a file the tests could rewrite.
	runJudged(ctx, dir, []string{"GOFLAGS="}, nil, &out, "go", "test", "-json", "-count=1", "./...")
	for _, l := range bytes.Split(out.Bytes(), []byte("\n")) {
		var e struct{ Action, Package, Test string }
		if json.Unmarshal(l, &e) != nil || e.Test == "" {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			r.record("go:"+e.Package+"."+e.Test, e.Action)
		}
	}
	return nil
}

// goTestBodies maps the hash of each Go test's body to its id, so a
// test renamed with its body unchanged is still the same test.
func goTestBodies(dir string, same map[string]string) {
	module := goModule(dir)
	if module == "" {
		return
	}
	var files []string
	hasFile(dir, func(p string) bool {
		if strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return false
	})
	for _, p := range files {
		pkg := module
		if d := filepath.ToSlash(filepath.Dir(p)); d != "." {
			pkg = module + "/" + d
		}
		for name, body := range goBodies(filepath.Join(dir, p)) {
			if strings.HasPrefix(name, "Test") {
				same[fmt.Sprintf("%x", sha256.Sum256([]byte(body)))] = "go:" + pkg + "." + name
			}
		}
	}
}

// shellTests runs each *_test.sh of the tree as a test.
func shellTests(ctx context.Context, dir string, tr testRun) {
	var tests []string
	hasFile(dir, func(p string) bool {
		if strings.HasSuffix(p, "_test.sh") {
			tests = append(tests, p)
		}
		return false
	})
	for _, p := range tests {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			continue
		}
		id := "sh:" + p
		g, _ := runEnv(ctx, dir, "sh "+shellQuote(p), nil)
		out := "pass"
		if g.ExitCode != 0 {
			out = "fail"
		}
		tr.results.record(id, out)
		tr.same[fmt.Sprintf("%x", sha256.Sum256(b))] = id
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// hasFile walks dir (not .git, not symlinks) and says whether any
// relative path satisfies match.
func hasFile(dir string, match func(string) bool) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			if match(filepath.ToSlash(rel)) {
				found = true
			}
		}
		return nil
	})
	return found
}

// compareTests turns the difference between the base's and the head's
// test results into findings; renames maps each file git found renamed
// to its new path.
func compareTests(base, head testRun, renames map[string]string) []Finding {
	var fs []Finding
	ids := make([]string, 0, len(base.results))
	for id := range base.results {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	// A test whose body moved under another name is the same test only
	// if that name ran and passed at the head: a body moved into a file
	// that is never built is still parsed, and still lost.
	renamed := map[string]bool{}
	for h, id := range base.same {
		if hid, ok := head.same[h]; ok && hid != id && head.results[hid] == "pass" {
			renamed[id] = true
		}
	}
	for _, id := range ids {
		if base.results[id] != "pass" || renamed[id] {
			continue
		}
		if nid := movedID(id, renames); nid != "" && head.results[nid] == "pass" {
			continue // its file was renamed, and it runs there
		}
		file := head.files[id]
		if file == "" {
			file = base.files[id]
		}
		if file == "" {
			file = testFile(id)
		}
		switch head.results[id] {
		case "":
			fs = append(fs, Finding{Code: "test-lost", Severity: "error", File: file, Message: testName(id) + " passed at the base and no longer runs at the head: deleted, renamed away, excluded, build-tagged off or commented out"})
		case "skip":
			fs = append(fs, Finding{Code: "test-skipped", Severity: "error", File: file, Message: testName(id) + " passed at the base and is skipped at the head"})
		case "xfail":
			fs = append(fs, Finding{Code: "test-skipped", Severity: "error", File: file, Message: testName(id) + " passed at the base and is marked as an expected failure at the head: its failure now passes the run"})
		}
	}
	if head.gate.ExitCode == 0 && head.gate.Command != "" && base.heard > 0 && head.heard == 0 {
		fs = append(fs, Finding{Code: "gate-runs-no-tests", Severity: "error", Message: fmt.Sprintf("the gate ran %s at the base and runs none at the head: it passes without testing anything", plural(base.heard, "test"))})
	}
	if head.gate.ExitCode == 0 && head.gate.Command != "" {
		var failed []string
		for id, out := range head.results {
			if out == "fail" {
				failed = append(failed, testName(id))
			}
		}
		sort.Strings(failed)
		if len(failed) > 0 {
			fs = append(fs, Finding{Code: "gate-masks-failure", Severity: "error", Message: fmt.Sprintf("the gate exits 0 while %d tests fail at the head: %s", len(failed), strings.Join(failed, ", "))})
		}
	}
	return fs
}

func testName(id string) string {
	_, n, _ := strings.Cut(id, ":")
	return n
}

func testFile(id string) string {
	if strings.HasPrefix(id, "sh:") {
		return testName(id)
	}
	if f, ok := strings.CutPrefix(id, "pytest:"); ok {
		f, _, _ = strings.Cut(f, "::")
		return f
	}
	if f, ok := strings.CutPrefix(id, "bats:"); ok {
		f, _, _ = strings.Cut(f, ":")
		return f
	}
	return ""
}
