package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RefsBut leaves out the refs under its prefix, loose or packed, and only
// those (refs/heads/wtx is not under refs/heads/wt/), whether the files are
// walked or git lists them.
func TestRefsButLeavesOutOnePrefix(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	gitIn(t, dir, "add", "f")
	gitIn(t, dir, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "c")
	for _, b := range []string{"wt/p-wp1", "wt/p-wp2", "wtx", "wt-y", "feature/wt/z"} {
		gitIn(t, dir, "branch", b)
	}
	gitIn(t, dir, "pack-refs", "--all") // every branch packed...
	gitIn(t, dir, "branch", "wt/q-wp1") // ...and one of ours loose
	gitIn(t, dir, "tag", "v1")
	repo, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := func(refs []Ref) string {
		var out []string
		for _, r := range refs {
			out = append(out, r.Name)
		}
		return strings.Join(out, " ")
	}
	want := "refs/heads/feature/wt/z refs/heads/main refs/heads/wt-y refs/heads/wtx refs/tags/v1"
	refs, ok := repo.storedRefs([]string{"refs/heads", "refs/tags"}, "refs/heads/wt/")
	if !ok || names(refs) != want {
		t.Fatalf("walked: %q (answered: %v), want %q", names(refs), ok, want)
	}
	// A ref the walk cannot read sends the question to git, filtered alike.
	os.WriteFile(filepath.Join(dir, ".git", "refs", "heads", "broken"), []byte("not an id\n"), 0o644)
	if _, ok := repo.storedRefs([]string{"refs/heads"}, "refs/heads/wt/"); ok {
		t.Fatal("a broken ref was answered in-process")
	}
	refs, err = repo.RefsBut("refs/heads/wt/", "refs/heads", "refs/tags")
	if err != nil || names(refs) != want {
		t.Fatalf("through git: %q %v, want %q", names(refs), err, want)
	}
	all, err := repo.Refs("refs/heads")
	if err != nil || !strings.Contains(names(all), "refs/heads/wt/p-wp1") || !strings.Contains(names(all), "refs/heads/wt/q-wp1") {
		t.Fatalf("Refs left something out: %q %v", names(all), err)
	}
}
