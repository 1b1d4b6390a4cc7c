package judge

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"os/exec"
	"strings"
)

// Python code is judged from its own syntax tree, by python3 when it is
// present: only functions new or changed since the base are judged.
//
//go:embed pyjudge.py
var pyJudge string

// pyTest is a test the change defines: the names the runner may report
// it under (Class.method, or a function's name).
type pyTest struct {
	file  string
	line  int
	names []string
}

// pyFindings runs the judge on the Python files the change touched.
func pyFindings(ctx context.Context, baseDir, headDir string, changed []string) ([]Finding, []pyTest) {
	var files []string
	for _, f := range changed {
		if strings.HasSuffix(f, ".py") {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return []Finding{{Code: "not-judged", Severity: "warning", Message: "python3 is not on PATH: the Python code was not parsed"}}, nil
	}
	cmd := exec.CommandContext(ctx, "python3", append([]string{"-I", "-c", pyJudge, headDir, baseDir}, files...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return []Finding{{Code: "not-judged", Severity: "warning", Message: "the Python judge failed: " + strings.TrimSpace(stderr.String())}}, nil
	}
	var fs []Finding
	var defined []pyTest
	for _, l := range bytes.Split(out.Bytes(), []byte("\n")) {
		var f Finding
		switch {
		case json.Unmarshal(l, &f) != nil || f.Code == "":
		case f.Code == "defined-test":
			defined = append(defined, pyTest{file: f.File, line: f.Line, names: strings.Fields(f.Message)})
		default:
			f.Severity = "error"
			fs = append(fs, f)
		}
	}
	return fs, defined
}

// uncollected finds the tests the change defines that the gate's runs
// never reported, when the gate was heard to run Python tests at all: a
// class that is no TestCase, a file the runner's pattern misses.
func uncollected(defined []pyTest, head testResults) []Finding {
	ran := false
	for id := range head {
		ran = ran || strings.HasPrefix(id, "py:") || strings.HasPrefix(id, "pytest:")
	}
	if !ran {
		return nil
	}
	var fs []Finding
	for _, d := range defined {
		if !pyHeard(d.names, head) {
			fs = append(fs, Finding{Code: "test-not-collected", Severity: "error", File: d.file, Line: d.line,
				Message: d.names[0] + " is defined but the runner never ran it: it proves nothing (a class that is no TestCase, a name or file the runner does not collect)"})
		}
	}
	return fs
}

// pyHeard: one of the names was reported by unittest (py:Class.method)
// or pytest (pytest:file::Class::method, pytest:file::function).
func pyHeard(names []string, head testResults) bool {
	for _, n := range names {
		if _, ok := head["py:"+n]; ok {
			return true
		}
		suffix := "::" + strings.ReplaceAll(n, ".", "::")
		for id := range head {
			if strings.HasPrefix(id, "pytest:") && (strings.HasSuffix(id, suffix) || strings.Contains(id, suffix+"[")) {
				return true
			}
		}
	}
	return false
}
