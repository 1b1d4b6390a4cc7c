package judge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Gate mutation: the gate itself is the oracle, for any language. The
// product lines a change added or modified (not its tests, not the gate's
// own scripts, not Go, which has its typed mutants in mutation.go) get
// line mutants (linemut.go); the gate runs on each, sandboxed, in copies
// of the head worked on in parallel. A file whose every judged mutant
// passes the gate is untested: the gate would pass were that code wrong.
// This is what notices a gutted custom check in a language no judge
// parses. It is an error when the change also edited the tests, the
// checks or the gate's scripts — the oracle was changed and no longer
// notices — and a warning when it did not: then the gate never tested
// those lines, before the change or after.

// maxFileMutants bounds the mutants of one file: enough to try each kind
// of edit on a few lines, few enough that a long change fits the budget.
const maxFileMutants = 8

// maxMutatedFile is the largest file mutated: bigger ones are generated
// or data.
const maxMutatedFile = 256 << 10

type fileMutant struct {
	rel  string
	m    lineMutant
	text []byte // the whole mutated file
}

// gateMutation runs the gate on the mutants of the changed product lines
// of headDir within budget; lines maps each changed file to its added or
// modified lines, touched lists every path the change touched.
func gateMutation(ctx context.Context, headDir, gate string, lines map[string][]int, touched []string, budget time.Duration) ([]Finding, time.Duration) {
	if gate == "" || budget <= 0 || len(lines) == 0 {
		return nil, 0
	}
	start := time.Now()
	gateOwn := gateOwnFiles(headDir, gate)
	var all []fileMutant
	for _, rel := range slices.Sorted(maps.Keys(lines)) {
		if gateOwn[rel] || isTestPath(rel) || strings.HasSuffix(rel, ".go") {
			continue
		}
		all = append(all, fileMutants(headDir, rel, lines[rel])...)
	}
	if len(all) == 0 {
		return nil, 0
	}
	outcomes, err := runMutants(ctx, headDir, gate, all, start.Add(budget))
	if err != nil {
		return []Finding{{Code: "mutation-budget", Severity: "warning", Message: "the gate mutation could not run: " + err.Error()}}, time.Since(start)
	}
	severity := "warning"
	for _, p := range touched {
		if gateOwn[p] || isTestPath(p) {
			severity = "error"
		}
	}
	return mutationVerdicts(all, outcomes, severity), time.Since(start)
}

// mutationVerdicts turns the outcome of each mutant into findings, file
// by file.
func mutationVerdicts(all []fileMutant, outcomes []outcome, severity string) []Finding {
	type tally struct {
		tried, survived, unjudged int
		first                     *lineMutant
	}
	byFile := map[string]*tally{}
	var order []string
	for i, fm := range all {
		t := byFile[fm.rel]
		if t == nil {
			t = &tally{}
			byFile[fm.rel] = t
			order = append(order, fm.rel)
		}
		switch outcomes[i] {
		case mutantSurvived:
			t.tried++
			t.survived++
			if t.first == nil {
				t.first = &all[i].m
			}
		case mutantKilled:
			t.tried++
		default:
			t.unjudged++
		}
	}
	var fs []Finding
	for _, rel := range order {
		t := byFile[rel]
		switch {
		case t.tried > 0 && t.survived == t.tried:
			m := t.first
			fs = append(fs, Finding{Code: "untested", Severity: severity, File: rel, Line: m.line,
				Message: fmt.Sprintf("the gate passes with every mutant of the lines this change made in %s (%d of %d survived): line %d with %s, %q becoming %q, still passes",
					rel, t.survived, t.tried, m.line, m.what, strings.TrimSpace(m.from), strings.TrimSpace(m.to))})
		case t.tried == 0 && t.unjudged > 0:
			fs = append(fs, Finding{Code: "mutation-budget", Severity: "warning", File: rel, Message: "the mutation budget ran out before the gate judged the changes of " + rel})
		}
	}
	return fs
}

// fileMutants lists at most maxFileMutants mutants of the changed lines
// of one file, one kind after another across the lines, each of which
// still parses where its language can be parsed.
func fileMutants(dir, rel string, changed []int) []fileMutant {
	b, err := readInTree(dir, rel)
	if err != nil || len(b) > maxMutatedFile || bytes.IndexByte(b, 0) >= 0 {
		return nil
	}
	lines := strings.Split(string(b), "\n")
	fam, ok := familyOf(rel, lines[0])
	if !ok {
		return nil
	}
	var per [][]lineMutant
	for _, n := range changed {
		if n >= 1 && n <= len(lines) {
			per = append(per, mutateLine(fam, n, lines[n-1]))
		}
	}
	var out []fileMutant
	for round := 0; len(out) < maxFileMutants; round++ {
		any := false
		for _, ms := range per {
			if round >= len(ms) || len(out) >= maxFileMutants {
				continue
			}
			any = true
			m := ms[round]
			mut := append([]string(nil), lines...)
			mut[m.line-1] = m.to
			text := []byte(strings.Join(mut, "\n"))
			if parses(fam, rel, text) {
				out = append(out, fileMutant{rel: rel, m: m, text: text})
			}
		}
		if !any {
			break
		}
	}
	return out
}

// parses says whether a mutant is still valid in the languages review
// can parse; any other is taken as it is, and a broken one is read as
// killed, which errs towards leniency.
func parses(f family, rel string, text []byte) bool {
	switch f {
	case jsFamily:
		_, err := parseJS(rel, text)
		return err == nil
	case shFamily:
		_, err := syntax.NewParser().Parse(bytes.NewReader(text), rel)
		return err == nil
	case pyFamily:
		return pyParses(text)
	}
	return true
}

// pyParses: python3 reads the text as Python (when python3 is there).
func pyParses(text []byte) bool {
	cmd := exec.Command("python3", "-I", "-c", "import ast, sys; ast.parse(sys.stdin.read())")
	cmd.Stdin = bytes.NewReader(text)
	err := cmd.Run()
	var ee *exec.ExitError
	return err == nil || !errors.As(err, &ee)
}

// runMutants runs the gate on each mutant, in as many copies of the head
// as there are processors (two at least), until the deadline.
func runMutants(ctx context.Context, headDir, gate string, all []fileMutant, deadline time.Time) ([]outcome, error) {
	workers := min(max(runtime.NumCPU(), 2), len(all))
	outcomes := make([]outcome, len(all))
	for i := range outcomes {
		outcomes[i] = mutantUnbuilt
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		copyDir, err := os.MkdirTemp("", "agentproto-mutant-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(copyDir)
		if err := copyTree(headDir, copyDir); err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				o, err := runMutant(ctx, headDir, copyDir, gate, all[i], deadline)
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
				outcomes[i] = o
			}
		}()
	}
	for i := range all {
		if time.Now().After(deadline) {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return outcomes, firstErr
}

// runMutant writes one mutant into a copy, runs the gate there and puts
// the file back.
func runMutant(ctx context.Context, headDir, copyDir, gate string, fm fileMutant, deadline time.Time) (outcome, error) {
	orig, err := os.ReadFile(filepath.Join(headDir, fm.rel))
	if err != nil {
		return mutantUnbuilt, err
	}
	p := filepath.Join(copyDir, fm.rel)
	if err := os.WriteFile(p, fm.text, 0o644); err != nil {
		return mutantUnbuilt, err
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	g, _ := runGate(ctx, copyDir, gate, nil, nil)
	if err := os.WriteFile(p, orig, 0o644); err != nil {
		return mutantUnbuilt, err
	}
	switch {
	case g.TimedOut:
		return mutantUnbuilt, nil
	case g.ExitCode == 0:
		return mutantSurvived, nil
	}
	return mutantKilled, nil
}

// gateOwnFiles are the files the gate command names: the gate's own
// scripts, which are no product.
func gateOwnFiles(dir, gate string) map[string]bool {
	own := map[string]bool{}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return own
	}
	defer root.Close()
	for _, f := range namedFiles(root.FS(), gate, map[string]bool{}) {
		own[f] = true
	}
	return own
}

// isTestPath: a test by its name, or a file under a directory of tests
// or checks.
func isTestPath(p string) bool {
	if isTestFile(p) || strings.HasSuffix(p, ".bats") || strings.HasSuffix(p, ".check") {
		return true
	}
	for _, d := range strings.Split(filepath.ToSlash(filepath.Dir(p)), "/") {
		switch d {
		case "test", "tests", "spec", "specs", "__tests__", "testdata", "fixtures", "check", "checks", "e2e":
			return true
		}
	}
	return false
}

// copyTree copies the regular files, directories and symlinks of src
// into dst; a symlink is copied as a link, never followed.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, info.Mode().Perm())
		}
		return nil
	})
}
