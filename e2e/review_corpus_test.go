package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

// The review corpus: pairs of changes in testdata/review, each a bad one
// (fake work whose gate still exits 0) and a clean twin that does the
// honest thing. Review must reject the first and accept the second.
//
// A case is a txtar archive. Its comment holds "lang:", "class:", "gate:"
// and optionally "own:" (the perimeter, space-separated globs). Files
// under base/ make the first commit; bad/ and clean/ are laid over it,
// "bad.delete" and "clean.delete" list paths they remove, and a file
// named X.symlink becomes a symlink X to its content.

// Floors of the corpus figures (the targets): review may not get worse.
const (
	minCatchRate = 0.95
	maxFalseRate = 0.02
)

type corpusCase struct {
	name, lang, class, gate string
	own                     []string
	ar                      *txtar.Archive
}

type corpusOutcome struct {
	name, class   string
	caught, false bool
	took          time.Duration
}

func loadCorpus(t *testing.T) []corpusCase {
	paths, err := filepath.Glob("testdata/review/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in testdata/review: %v", err)
	}
	var cs []corpusCase
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := corpusCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), ar: ar}
		for _, l := range strings.Split(string(ar.Comment), "\n") {
			k, v, _ := strings.Cut(l, ": ")
			switch k {
			case "lang":
				c.lang = v
			case "class":
				c.class = v
			case "gate":
				c.gate = v
			case "own":
				c.own = strings.Fields(v)
			}
		}
		if c.lang == "" || c.gate == "" {
			t.Fatalf("%s: lang and gate are needed", p)
		}
		cs = append(cs, c)
	}
	return cs
}

// corpusEnv is the test environment plus a shared Go build cache, so the
// Go cases do not rebuild the standard library each time.
func corpusEnv(t *testing.T, home string) []string {
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	return append(gitEnv(home), "GOCACHE="+strings.TrimSpace(string(cache)), "GOTOOLCHAIN=local", "GOFLAGS=")
}

func corpusGit(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// layOver writes the files of one variant (prefix "base", "bad" or
// "clean") into the repository.
func layOver(t *testing.T, repo string, ar *txtar.Archive, prefix string) {
	for _, f := range ar.Files {
		if f.Name == prefix+".delete" {
			for _, p := range strings.Fields(string(f.Data)) {
				if err := os.Remove(filepath.Join(repo, p)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, f := range ar.Files {
		rel, ok := strings.CutPrefix(f.Name, prefix+"/")
		if !ok {
			continue
		}
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutSuffix(p, ".symlink"); ok {
			if err := os.Symlink(strings.TrimSpace(string(f.Data)), target); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type changeReview struct {
	Gates []struct {
		Where string `json:"where"`
		Gate  struct {
			ExitCode int `json:"exit_code"`
		} `json:"gate"`
	} `json:"gates"`
	Findings []struct {
		Code     string `json:"code"`
		File     string `json:"file"`
		Line     int    `json:"line"`
		Message  string `json:"message"`
		Severity string `json:"severity"`
	} `json:"findings"`
	MutationTime string `json:"mutation_time"`
	OK           bool   `json:"ok"`
}

// reviewVariant commits one variant over the base and reviews it through
// the CLI; it returns whether review rejected it.
func reviewVariant(t *testing.T, c corpusCase, variant string) (bool, time.Duration) {
	_, rejected, took := reviewVariantResult(t, c, variant)
	return rejected, took
}

// reviewVariantResult is reviewVariant with the review itself.
func reviewVariantResult(t *testing.T, c corpusCase, variant string) (*changeReview, bool, time.Duration) {
	home := t.TempDir()
	repo := filepath.Join(home, "repo")
	env := corpusEnv(t, home)
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	corpusGit(t, repo, env, "init", "-q", "-b", "main")
	layOver(t, repo, c.ar, "base")
	corpusGit(t, repo, env, "add", "-A")
	corpusGit(t, repo, env, "commit", "-q", "-m", "base")
	base := corpusGit(t, repo, env, "rev-parse", "HEAD")
	layOver(t, repo, c.ar, variant)
	corpusGit(t, repo, env, "add", "-A")
	corpusGit(t, repo, env, "commit", "-q", "-m", variant)
	// A smaller mutation budget than the default keeps the corpus within
	// the CI budget.
	args := []string{"review", "--base", base, "--head", "HEAD", "--gate", c.gate, "--mutation-budget", "15s", "--json"}
	for _, o := range c.own {
		args = append(args, "--own", o)
	}
	cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), args...)
	cmd.Dir, cmd.Env = repo, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("%s/%s: review: %v\n%s", c.name, variant, err, stderr.String())
	}
	var r changeReview
	if jerr := json.Unmarshal(stdout.Bytes(), &r); jerr != nil {
		t.Fatalf("%s/%s: review JSON: %v\n%s", c.name, variant, jerr, stdout.String())
	}
	for _, g := range r.Gates {
		if g.Where == "head" && g.Gate.ExitCode != 0 {
			t.Errorf("%s/%s: the corpus is wrong: its gate exits %d (every case must pass its gate)", c.name, variant, g.Gate.ExitCode)
		}
	}
	if (err != nil) == r.OK {
		t.Errorf("%s/%s: exit status and ok=%v disagree", c.name, variant, r.OK)
	}
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "\n  %s %s %s:%d %s", f.Severity, f.Code, f.File, f.Line, f.Message)
	}
	t.Logf("%s/%s: rejected=%v in %s (mutation %s)%s", c.name, variant, err != nil, took.Round(time.Millisecond), r.MutationTime, b.String())
	return &r, err != nil, took
}

func TestReviewCorpus(t *testing.T) {
	cases := loadCorpus(t)
	runtimes := map[string]string{"python": "python3", "pytest": "pytest", "js": "node", "go": "go", "shell": "sh", "bats": "bats"}
	var mu sync.Mutex
	var outs []corpusOutcome
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if _, err := exec.LookPath(runtimes[c.lang]); err != nil {
					t.Skipf("%s cases need %s, which is not on PATH", c.lang, runtimes[c.lang])
				}
				t.Parallel()
				bad, tb := reviewVariant(t, c, "bad")
				clean, tc := reviewVariant(t, c, "clean")
				mu.Lock()
				outs = append(outs, corpusOutcome{name: c.name, class: c.class, caught: bad, false: clean, took: tb}, corpusOutcome{name: c.name, took: tc})
				mu.Unlock()
			})
		}
	})
	pairs, caught, falses := 0, 0, 0
	var times []time.Duration
	var missed, wolves []string
	for _, o := range outs {
		times = append(times, o.took)
		if o.class == "" {
			continue
		}
		pairs++
		if o.caught {
			caught++
		} else {
			missed = append(missed, o.name)
		}
		if o.false {
			falses++
			wolves = append(wolves, o.name)
		}
	}
	if pairs == 0 {
		t.Fatal("no corpus case ran")
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	catch, fp := float64(caught)/float64(pairs), float64(falses)/float64(pairs)
	sort.Strings(missed)
	sort.Strings(wolves)
	t.Logf("missed: %s", strings.Join(missed, " "))
	t.Logf("false positives: %s", strings.Join(wolves, " "))
	t.Logf("review corpus: %d pairs, caught %d (%.1f%%), false positives %d (%.1f%%), review time median %s p90 %s",
		pairs, caught, 100*catch, falses, 100*fp,
		times[len(times)/2].Round(time.Millisecond), times[len(times)*9/10].Round(time.Millisecond))
	if catch < minCatchRate || fp > maxFalseRate {
		t.Errorf("review got worse on the corpus: catch %.1f%% (floor %.1f%%), false positives %.1f%% (ceiling %.1f%%)",
			100*catch, 100*minCatchRate, 100*fp, 100*maxFalseRate)
	}
}
