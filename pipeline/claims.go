package pipeline

import (
	"fmt"
	"path"
	"strings"

	"github.com/agentproto/agentproto/judge"
)

// reportFindings holds a report against the disk and the gate run here:
// files it lists that did not change, changed files it does not list
// (out-of-perimeter ones are findings already), and exit codes it gives
// for the gate that the run here did not get. Commands other than the
// gate are not run again: a report cannot make verify run a command.
func reportFindings(r *Report, changed, outOfScope []string, gate judge.Gate) []string {
	var fs []string
	isChanged := map[string]bool{}
	for _, c := range changed {
		isChanged[c] = true
	}
	listed := map[string]bool{}
	for _, f := range r.Files {
		p, ok := reportPath(f)
		if !ok {
			fs = append(fs, fmt.Sprintf("report-path: the report lists %q, which is not a path inside the repository", f))
			continue
		}
		listed[p] = true
		if !isChanged[p] {
			fs = append(fs, fmt.Sprintf("report-unchanged: the report lists %s, which did not change", p))
		}
	}
	outside := map[string]bool{}
	for _, o := range outOfScope {
		outside[o] = true
	}
	for _, c := range changed {
		if !listed[c] && !outside[c] {
			fs = append(fs, fmt.Sprintf("report-unlisted: %s changed but the report does not list it", c))
		}
	}
	want := commandKey(gate.Command)
	for _, ec := range r.ExitCodes {
		if commandKey(ec.Command) == want && ec.ExitCode != gate.ExitCode {
			fs = append(fs, fmt.Sprintf("report-exit-code: the report says %q exited %d; run again here it exited %d", ec.Command, ec.ExitCode, gate.ExitCode))
		}
	}
	return fs
}

// reportPath is a report's file name as a repository path: slashes,
// no leading ./, nothing that climbs out or starts at the root.
func reportPath(p string) (string, bool) {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// commandKey compares commands by their words, so spacing differences do
// not hide a claim about the gate.
func commandKey(cmd string) string { return strings.Join(strings.Fields(cmd), " ") }
