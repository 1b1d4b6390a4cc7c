package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDiscoverStopsAtCeiling: with GIT_CEILING_DIRECTORIES naming a
// directory between dir and the repository, discovery finds no
// repository, as git itself does; without it, it finds the repository.
func TestDiscoverStopsAtCeiling(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	deep := filepath.Join(repo, "a", "b")
	os.MkdirAll(deep, 0o755)
	t.Setenv("GIT_DIR", "")
	os.Unsetenv("GIT_DIR")
	if r, err := Discover(deep); err != nil || r.WorkTree != repo {
		t.Fatalf("without a ceiling: %+v %v", r, err)
	}
	for _, c := range []struct {
		ceiling string
		found   bool
	}{
		{filepath.Join(repo, "a"), false},
		{"relative/ignored:" + filepath.Join(repo, "a"), false},
		{repo, false}, // the top holding .git is itself not gone up into
		{deep, true},  // a ceiling at dir itself stops nothing
	} {
		t.Setenv("GIT_CEILING_DIRECTORIES", c.ceiling)
		cmd := exec.Command("git", "rev-parse", "--show-toplevel")
		cmd.Dir = deep
		gitFound := cmd.Run() == nil
		r, err := Discover(deep)
		if (err == nil) != gitFound {
			t.Errorf("ceiling %s: we found %+v (%v), git found a repository: %v", c.ceiling, r, err, gitFound)
		}
		if gitFound != c.found {
			t.Errorf("ceiling %s: git found a repository: %v, the test expects %v", c.ceiling, gitFound, c.found)
		}
		if err != nil && !errors.Is(err, ErrNotRepository) {
			t.Errorf("ceiling %s: %v", c.ceiling, err)
		}
	}
}
