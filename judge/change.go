package judge

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// ChangeReview is the review of one change, base..head, with no plan: what
// a CI job reviewing a pull request needs, and what the plan review runs
// for each WP.
type ChangeReview struct {
	Base     string    `json:"base"`
	Head     string    `json:"head"`
	Gates    []GateRun `json:"gates"`
	Findings []Finding `json:"findings"`
	// MutationTime is how much of the mutation budget was used.
	MutationTime string `json:"mutation_time,omitempty"`
	OK           bool   `json:"ok"`
}

// ChangeOptions says what a change must pass and may touch.
type ChangeOptions struct {
	Gate string // the command that must pass; none when empty
	// Inside says whether a path lies in the perimeter, which Own names
	// in findings; any path when nil. The caller matches the globs: judge
	// does not read perimeters.
	Inside func(path string) bool
	Own    []string
	// GateTimeout bounds each run of the tests (the gate and what review
	// runs beside it), base and head each on its own; none when zero.
	GateTimeout time.Duration
	// MutationBudget bounds the mutation smoke and then the gate
	// mutation, together; zero turns both off.
	MutationBudget time.Duration
}

// ReviewChange reviews base..head: the gate (if any) is run on a fresh
// copy of the head, every changed path is held to the perimeter, and the
// change is read for fake work.
func ReviewChange(ctx context.Context, repo *gitrepo.Repo, base, head string, opt ChangeOptions) (*ChangeReview, error) {
	gate := opt.Gate
	b, err := resolveCommit(repo, base)
	if err != nil {
		return nil, err
	}
	h, err := resolveCommit(repo, head)
	if err != nil {
		return nil, err
	}
	r := &ChangeReview{Base: b, Head: h, Gates: []GateRun{}, Findings: []Finding{}}
	runs := map[string]testRun{}
	dirs := map[string]string{}
	for _, side := range []struct{ name, commit string }{{"base", b}, {"head", h}} {
		dir, err := os.MkdirTemp("", "agentproto-review-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if err := extractTree(repo, side.commit, dir); err != nil {
			return nil, err
		}
		tr, err := runTestsBounded(ctx, dir, gate, opt.GateTimeout)
		if err != nil {
			return nil, err
		}
		// The judges read the tree from git's objects, not from a copy
		// the tests could rewrite: one they did is a finding, and the
		// judges get a fresh copy.
		if dir, err = untampered(repo, side.name, side.commit, dir, r); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		runs[side.name], dirs[side.name] = tr, dir
		if gate != "" {
			r.Gates = append(r.Gates, GateRun{Where: side.name, Gate: tr.gate})
		}
	}
	if g := runs["head"].gate; gate != "" && g.ExitCode != 0 {
		r.Findings = append(r.Findings, Finding{Code: "gate-failed", Severity: "error", Message: fmt.Sprintf("the gate exits %d on the head", g.ExitCode)})
	}
	renames, err := gitRenames(repo.Git, b, h)
	if err != nil {
		return nil, err
	}
	r.Findings = append(r.Findings, compareTests(runs["base"], runs["head"], renames)...)
	out, err := repo.Git("diff", "--name-only", "--no-renames", "--diff-filter=AM", "-z", b, h)
	if err != nil {
		return nil, err
	}
	changed := strings.FieldsFunc(string(out), func(c rune) bool { return c == 0 })
	r.Findings = append(r.Findings, goFindings(dirs["base"], dirs["head"], changed)...)
	pfs, defined := pyFindings(ctx, dirs["base"], dirs["head"], changed)
	r.Findings = append(r.Findings, pfs...)
	r.Findings = append(r.Findings, uncollected(defined, runs["head"].results)...)
	r.Findings = append(r.Findings, jsFindings(dirs["base"], dirs["head"], changed)...)
	r.Findings = append(r.Findings, batsFindings(dirs["base"], dirs["head"], changed)...)
	mfs, used := mutationSmoke(ctx, dirs["base"], dirs["head"], changed, opt.MutationBudget)
	r.Findings = append(r.Findings, mfs...)
	if left := opt.MutationBudget - used; left > 0 && runs["head"].gate.ExitCode == 0 {
		lines, err := changedLines(repo.Git, b, h)
		if err != nil {
			return nil, err
		}
		touched, err := repo.ChangedNames(b, h)
		if err != nil {
			return nil, err
		}
		gfs, gused := gateMutation(ctx, dirs["head"], gate, lines, touched, left)
		r.Findings = append(r.Findings, gfs...)
		used += gused
	}
	if used > 0 {
		r.MutationTime = used.Round(time.Millisecond).String()
	}
	if opt.Inside != nil {
		changed, err := repo.ChangedNames(b, h)
		if err != nil {
			return nil, err
		}
		for _, p := range changed {
			if !opt.Inside(p) {
				r.Findings = append(r.Findings, Finding{Code: "commit-out-of-perimeter", Severity: "error", File: p, Message: p + " changed, outside the perimeter (" + strings.Join(opt.Own, " ") + ")"})
			}
		}
	}
	fs, err := ScanRange(repo.Git, b, h)
	if err != nil {
		return nil, err
	}
	// Text patterns alone are no evidence that behaviour is lost: they
	// are reported as warnings, for a reader to judge.
	for _, f := range fs {
		f.Severity = "warning"
		r.Findings = append(r.Findings, f)
	}
	r.OK = !AnyError(r.Findings)
	return r, nil
}

// changedLines maps each file base..head added or modified to the lines
// of the head the change added or modified.
func changedLines(git func(args ...string) ([]byte, error), base, head string) (map[string][]int, error) {
	out, err := git("diff", "-U0", "--no-renames", "--no-color", "--no-ext-diff", "--diff-filter=AM", base, head)
	if err != nil {
		return nil, err
	}
	lines := map[string][]int{}
	file := ""
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = ""
			if p, ok := strings.CutPrefix(l, "+++ b/"); ok && !strings.HasPrefix(p, "\"") {
				file = p // a quoted, unusual name is left unjudged
			}
		case strings.HasPrefix(l, "@@ ") && file != "":
			var from, n int
			_, plus, _ := strings.Cut(l, " +")
			plus, _, _ = strings.Cut(plus, " ")
			start, count, ok := strings.Cut(plus, ",")
			if _, err := fmt.Sscan(start, &from); err != nil {
				continue
			}
			n = 1
			if ok {
				if _, err := fmt.Sscan(count, &n); err != nil {
					continue
				}
			}
			for i := 0; i < n; i++ {
				lines[file] = append(lines[file], from+i)
			}
		}
	}
	return lines, nil
}

// runTestsBounded is runTests with a bound of its own, when one is given.
func runTestsBounded(ctx context.Context, dir, gate string, bound time.Duration) (testRun, error) {
	if bound > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, bound)
		defer cancel()
	}
	return runTests(ctx, dir, gate)
}

// resolveCommit turns a revision into a commit id, with one clear error.
func resolveCommit(repo *gitrepo.Repo, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%q is not a revision", rev)
	}
	commit, err := repo.Commit(rev)
	if err != nil {
		return "", fmt.Errorf("%q is not a commit in this repository", rev)
	}
	return commit, nil
}

// CopyCommit writes the tree of commit into a new temporary directory,
// as review's fresh copies are made; the caller removes it.
func CopyCommit(repo *gitrepo.Repo, commit string) (string, error) {
	dir, err := os.MkdirTemp("", "agentproto-review-")
	if err != nil {
		return "", err
	}
	if err := extractTree(repo, commit, dir); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// extractTree writes the tree of a commit into dir, never following a
// symlink while writing: the tree is as untrusted as its author.
func extractTree(repo *gitrepo.Repo, commit, dir string) error {
	out, err := repo.Git("archive", "--format=tar", commit)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		hd, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(hd.Name, "/")
		if name == "" || name == "pax_global_header" {
			continue
		}
		switch hd.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := root.Symlink(hd.Linkname, name); err != nil {
				return err
			}
		case tar.TypeReg:
			f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, os.FileMode(hd.Mode)&0o755|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// untampered checks the copy of commit the tests ran in; when they
// rewrote a tracked file, it records a tampered finding and returns a
// fresh copy for the judges to read.
func untampered(repo *gitrepo.Repo, side, commit, dir string, r *ChangeReview) (string, error) {
	changed, err := tampered(repo, commit, dir)
	if err != nil || len(changed) == 0 {
		return dir, err
	}
	r.Findings = append(r.Findings, Finding{Code: "tampered", Severity: "error", File: changed[0],
		Message: fmt.Sprintf("running the tests on the %s rewrote what review reads (%s): the verdict comes from a fresh copy, and the change is suspect", side, strings.Join(changed, ", "))})
	fresh, err := os.MkdirTemp("", "agentproto-review-")
	if err != nil {
		return "", err
	}
	return fresh, extractTree(repo, commit, fresh)
}
