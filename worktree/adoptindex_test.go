package worktree

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// commitChanges changes the worktree (an edit, a new file, a deletion),
// keeps its state, and commits that tree on HEAD as a checkpoint does; it
// returns the kept state and the paths committed.
func commitChanges(t *testing.T, m *Meta, git func(...string) string, repo *gitrepo.Repo) (*KeptState, []string) {
	t.Helper()
	os.WriteFile(filepath.Join(m.Path, "c"), []byte("c changed\n"), 0o644)
	os.WriteFile(filepath.Join(m.Path, "n"), []byte("new\n"), 0o644)
	os.Remove(filepath.Join(m.Path, "d"))
	// Older than the indexes written next, so that no entry is racily
	// clean and the comparisons below are of content only.
	old := time.Now().Add(-time.Minute)
	for _, f := range []string{"c", "n"} {
		os.Chtimes(filepath.Join(m.Path, f), old, old)
	}
	kept, err := KeptStateOf(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(git("rev-parse", "HEAD"))
	c := strings.TrimSpace(git("commit-tree", kept.Tree, "-p", head, "-m", "checkpoint"))
	git("update-ref", "HEAD", c, head)
	return kept, []string{"c", "d", "n"}
}

// withIndexFile runs git in dir on another index file.
func withIndexFile(t *testing.T, dir, index string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GIT_INDEX_FILE="+index)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestAdoptLeavesWhatResetWould: after the kept tree is committed, the
// adopted index holds what `git reset -- committed` leaves, and the
// worktree is clean.
func TestAdoptLeavesWhatResetWould(t *testing.T) {
	repo, m, git := changesFixture(t)
	kept, committed := commitChanges(t, m, git, repo)
	live := filepath.Join(adminDir(repo, m.Slug), "index")
	copied := filepath.Join(t.TempDir(), "index")
	b, _ := os.ReadFile(live)
	os.WriteFile(copied, b, 0o644)
	withIndexFile(t, m.Path, copied, append([]string{"reset", "-q", "--"}, committed...)...)
	want := withIndexFile(t, m.Path, copied, "ls-files", "-s")

	ok, err := kept.Adopt(repo, m, committed)
	if err != nil || !ok {
		t.Fatalf("Adopt = %v (%v), want true", ok, err)
	}
	if got := git("ls-files", "-s"); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Fatalf("adopted index:\n%s\nreset leaves:\n%s", got, want)
	}
	if st := git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("the worktree is not clean after adopting: %q", st)
	}
	if _, err := os.Stat(live + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("index.lock left behind: %v", err)
	}
}

// TestAdoptKeepsWhatIsStaged: an index that holds anything the kept one
// does not outside the committed paths (a change staged, then undone on
// disk, before the state was kept), a lock held by git, a change made after the state was kept, or a
// symlink planted at the lock each leave the index exactly as it was.
func TestAdoptKeepsWhatIsStaged(t *testing.T) {
	cases := map[string]func(t *testing.T, m *Meta, git func(...string) string, live string){
		"staged outside": func(t *testing.T, m *Meta, git func(...string) string, live string) {
			b := filepath.Join(m.Path, "b")
			os.WriteFile(b, []byte("B staged\n"), 0o644)
			git("add", "b")
			os.WriteFile(b, []byte("b\n"), 0o644)
			old := time.Now().Add(-time.Minute)
			os.Chtimes(b, old, old)
		},
		"locked": func(t *testing.T, m *Meta, git func(...string) string, live string) {
			os.WriteFile(live+".lock", []byte("git's\n"), 0o644)
		},
		"changed since": func(t *testing.T, m *Meta, git func(...string) string, live string) {
			os.WriteFile(filepath.Join(m.Path, "n"), []byte("new, again\n"), 0o644)
		},
		"symlink at the lock": func(t *testing.T, m *Meta, git func(...string) string, live string) {
			os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), live+".lock")
		},
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			repo, m, git := changesFixture(t)
			live := filepath.Join(adminDir(repo, m.Slug), "index")
			staged := name == "staged outside"
			if staged {
				spoil(t, m, git, live)
			}
			kept, committed := commitChanges(t, m, git, repo)
			if !staged {
				spoil(t, m, git, live)
			}
			lockBefore, lockErr := os.Lstat(live + ".lock")
			before, _ := os.ReadFile(live)
			ok, err := kept.Adopt(repo, m, committed)
			if err != nil || ok {
				t.Fatalf("Adopt = %v (%v), want false", ok, err)
			}
			if after, _ := os.ReadFile(live); !bytes.Equal(after, before) {
				t.Fatal("the index changed")
			}
			lockAfter, err := os.Lstat(live + ".lock")
			switch {
			case lockErr != nil && err == nil:
				t.Fatal("index.lock left behind")
			case lockErr == nil && (err != nil || !os.SameFile(lockBefore, lockAfter)):
				t.Fatal("someone else's index.lock was removed or replaced")
			}
			if name == "symlink at the lock" {
				if _, err := os.Stat(live + ".lock"); !os.IsNotExist(err) {
					t.Fatalf("the symlink's target was written: %v", err)
				}
			}
		})
	}
}
