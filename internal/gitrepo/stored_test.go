package gitrepo

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestStoredReadsAgreeWithGit holds each in-process read against the git
// command it stands for, on a history with subdirectories, a symlink, an
// executable, a submodule entry, a file that becomes a directory, loose
// and packed refs; and checks that they did answer (a reader that always
// left the question to git would pass the comparison alone).
func TestStoredReadsAgreeWithGit(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644)
	}
	write("a.txt", "a\n")
	write("d/b.txt", "b\n")
	write("d/e/c.txt", "c\n")
	write("x", "file\n")
	write("d-e.txt", "sorts between d and d/\n")
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,sub")
	gitIn(t, dir, "commit", "-qm", "one")
	first := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "pack-refs", "--all")
	gitIn(t, dir, "tag", "v1")
	write("d/e/c.txt", "c2\n")
	os.Chmod(filepath.Join(dir, "a.txt"), 0o755)
	os.Remove(filepath.Join(dir, "x"))
	write("x/inside.txt", "now a directory\n")
	write("new/deep/n.txt", "n\n")
	os.Remove(filepath.Join(dir, "d/b.txt"))
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,sub")
	gitIn(t, dir, "commit", "-qm", "two")
	second := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "branch", "side", first)
	repo, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}

	for _, rev := range []string{"HEAD", "refs/heads/main", "refs/heads/side", "refs/tags/v1", first, second} {
		got, ok := repo.storedCommitID(rev)
		if want := gitIn(t, dir, "rev-parse", rev+"^{commit}"); !ok || got != want {
			t.Errorf("commit of %s: got %q (%v), git says %q", rev, got, ok, want)
		}
		gotTree, ok := repo.storedTreeID(rev)
		if want := gitIn(t, dir, "rev-parse", rev+"^{tree}"); !ok || gotTree != want {
			t.Errorf("tree of %s: got %q (%v), git says %q", rev, gotTree, ok, want)
		}
	}
	for _, rev := range []string{first, second} {
		entries, ok := repo.storedListTree(rev)
		out := gitIn(t, dir, "ls-tree", "-r", "--full-tree", rev)
		var lines []string
		for _, e := range entries {
			lines = append(lines, e.Mode+" "+e.Type+" "+e.ID+"\t"+e.Path)
		}
		if !ok || strings.Join(lines, "\n") != out {
			t.Errorf("ls-tree of %s (%v):\n%s\ngit says:\n%s", rev, ok, strings.Join(lines, "\n"), out)
		}
	}
	for _, pair := range [][2]string{{first, second}, {second, first}, {first + "^{tree}", second}} {
		from := pair[0]
		if f, ok := strings.CutSuffix(from, "^{tree}"); ok {
			from = gitIn(t, dir, "rev-parse", f+"^{tree}")
		}
		got, ok := repo.storedDiff(from, pair[1])
		want := strings.Split(gitIn(t, dir, "diff-tree", "-r", "--name-only", "--no-renames", from, pair[1]), "\n")
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("diff %s %s (%v): %q, git says %q", from, pair[1], ok, got, want)
		}
	}
	if b, ok := repo.storedBlob(second, "d/e/c.txt"); !ok || string(b) != "c2\n" {
		t.Errorf("blob d/e/c.txt: %q %v", b, ok)
	}
	if b, ok := repo.storedBlob("HEAD", "link"); !ok || string(b) != "a.txt" {
		t.Errorf("symlink blob: %q %v", b, ok)
	}
	for _, missing := range []string{"nope", "d", "sub", "d/nope.txt", "./a.txt"} {
		if _, ok := repo.storedBlob("HEAD", missing); ok {
			t.Errorf("blob %s: answered in-process, which is git's to refuse or resolve", missing)
		}
	}
	refs, ok := repo.storedRefs([]string{"refs/heads", "refs/tags"}, "")
	want := gitIn(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads", "refs/tags")
	var lines []string
	for _, r := range refs {
		lines = append(lines, r.ID+" "+r.Name)
	}
	if !ok || strings.Join(lines, "\n") != want {
		t.Errorf("refs (%v):\n%s\ngit says:\n%s", ok, strings.Join(lines, "\n"), want)
	}
	if refs, ok := repo.storedRefs([]string{"refs/heads/side"}, ""); !ok || len(refs) != 1 || refs[0].ID != first {
		t.Errorf("one ref: %v %v", refs, ok)
	}

	// A replace ref makes git read other objects than the stored ones:
	// every read is git's again.
	gitIn(t, dir, "replace", first, second)
	if _, ok := repo.storedTreeID(first); ok {
		t.Error("with a replace ref, a tree was read in-process")
	}
	if got, err := repo.Tree(first); err != nil || got != gitIn(t, dir, "rev-parse", first+"^{tree}") {
		t.Errorf("Tree with a replace ref: %q %v", got, err)
	}
}
