package judge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// The reporters of pytest, jest and vitest. pytest loads a plugin from
// PYTEST_ADDOPTS="-p agentproto_pytest" (the plugin lies on PYTHONPATH
// beside the unittest hook) and writes each test's outcome to
// AGENTPROTO_TESTLOG, so any gate that runs pytest, however deep, reports
// what it ran. jest and vitest read no reporter from the environment:
// each command of the gate that runs one of them (jest, vitest, or
// through npx, yarn, pnpm or bunx) gets the runner's JSON reporter added;
// a gate that runs them another way (npm test) reports through
// AGENTPROTO_TESTLOG or not at all.

const pytestPluginName = "agentproto_pytest"

const pytestPlugin = `import json, os, sys
_log = os.environ.get("AGENTPROTO_TESTLOG")
def pytest_runtest_logreport(report):
    if not _log:
        return
    if report.when == "call":
        outcome = {"passed": "pass", "failed": "fail", "skipped": "skip"}.get(report.outcome)
    elif report.outcome != "passed":
        outcome = "skip" if report.outcome == "skipped" else "fail"  # at setup or teardown
    else:
        return
    if hasattr(report, "wasxfail"):
        outcome = "xfail"  # an expected failure, or an xfail that passed: proves nothing
    try:
        with open(_log, "a") as f:
            f.write(json.dumps({"id": "pytest:" + report.nodeid, "outcome": outcome}) + "\n")
    except OSError as e:
        sys.stderr.write("agentproto: cannot record a test result: %s\n" % e)
`

// nodeReporter is a reporter for node's test runner (node 20 and later)
// that appends each test's result to AGENTPROTO_TESTLOG. It appends, where
// a reporter's destination file is rewritten by each run: a gate that runs
// node --test twice is heard twice. A todo test proves nothing, as a skip.
const nodeReporter = `import { appendFileSync } from "node:fs";
const log = process.env.AGENTPROTO_TESTLOG;
export default async function* agentproto(source) {
  for await (const e of source) {
    if (!log || (e.type !== "test:pass" && e.type !== "test:fail")) continue;
    const d = e.data;
    let outcome = e.type === "test:pass" ? "pass" : "fail";
    if ((d.skip !== undefined && d.skip !== false) || (d.todo !== undefined && d.todo !== false)) outcome = "skip";
    try {
      appendFileSync(log, JSON.stringify({ node: String(d.name), outcome, file: d.file || "" }) + "\n");
    } catch (err) {
      process.stderr.write("agentproto: cannot record a test result: " + err.message + "\n");
    }
  }
}
`

// runnerEnv is the environment that turns the pytest plugin and the node
// reporter on.
func runnerEnv(hooks string) ([]string, error) {
	if err := os.WriteFile(filepath.Join(hooks, pytestPluginName+".py"), []byte(pytestPlugin), 0o644); err != nil {
		return nil, err
	}
	rep := filepath.Join(hooks, "agentproto-node-reporter.mjs")
	if err := os.WriteFile(rep, []byte(nodeReporter), 0o644); err != nil {
		return nil, err
	}
	return []string{
		"PYTEST_ADDOPTS=" + strings.TrimSpace(os.Getenv("PYTEST_ADDOPTS")+" -p "+pytestPluginName),
		"NODE_OPTIONS=" + strings.TrimSpace(os.Getenv("NODE_OPTIONS")+" --test-reporter=spec --test-reporter-destination=stdout --test-reporter="+rep+" --test-reporter-destination=stdout"),
	}, nil
}

// withJSReporter returns the gate with the JSON reporter of jest or
// vitest added to each command of it that runs one of them (vitest run
// || true included); otherwise the gate as it is.
func withJSReporter(gate, out string) string {
	if !safePath.MatchString(out) {
		return gate
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(gate), "")
	if err != nil {
		return gate
	}
	changed := false
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		var words []string
		for _, w := range c.Args {
			if w.Lit() == "" {
				break // quoting or expansion: the words known so far name the command
			}
			words = append(words, w.Lit())
		}
		var flags []string
		switch jsRunnerOf(words) {
		case "jest":
			flags = []string{"--json", "--outputFile=" + out}
		case "vitest":
			flags = []string{"--reporter=default", "--reporter=json", "--outputFile.json=" + out}
		}
		for _, fl := range flags {
			c.Args = append(c.Args, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: fl}}})
			changed = true
		}
		return true
	})
	if !changed {
		return gate
	}
	var b strings.Builder
	if syntax.NewPrinter().Print(&b, f) != nil {
		return gate
	}
	return b.String()
}

// safePath: a path that needs no quoting in a shell word.
var safePath = lazyre.New(`^[A-Za-z0-9/._-]+$`)

// jsRunnerOf names the runner a command line starts: jest, vitest or "".
func jsRunnerOf(words []string) string {
	if len(words) == 0 {
		return ""
	}
	w := words
	switch filepath.Base(w[0]) {
	case "npx", "yarn", "pnpm", "bunx":
		w = w[1:]
		if len(w) > 0 && (w[0] == "exec" || w[0] == "dlx") {
			w = w[1:]
		}
	}
	if len(w) == 0 {
		return ""
	}
	switch filepath.Base(w[0]) {
	case "jest":
		return "jest"
	case "vitest":
		return "vitest"
	}
	return ""
}

// readJestJSON reads the results file jest and vitest write (the same
// shape): each assertion result's full name and status, by test file
// relative to dir, so the base's and the head's trees give the same ids.
func readJestJSON(path, dir string, r testResults) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var res struct {
		TestResults []struct {
			Name             string `json:"name"`
			AssertionResults []struct {
				FullName string `json:"fullName"`
				Status   string `json:"status"`
			} `json:"assertionResults"`
		} `json:"testResults"`
	}
	if json.Unmarshal(b, &res) != nil {
		return
	}
	real, _ := filepath.EvalSymlinks(dir)
	for _, f := range res.TestResults {
		name := f.Name
		for _, d := range []string{dir, real} {
			if rel, err := filepath.Rel(d, f.Name); err == nil && !strings.HasPrefix(rel, "..") {
				name = filepath.ToSlash(rel)
				break
			}
		}
		for _, a := range f.AssertionResults {
			out := "skip" // pending, skipped, todo, disabled
			switch a.Status {
			case "passed":
				out = "pass"
			case "failed":
				out = "fail"
			}
			r.record("js:"+name+" > "+a.FullName, out)
		}
	}
}
