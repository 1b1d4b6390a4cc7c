package worktree

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestStateTreeReadsTheDisk: the state tree holds untracked files and
// changes hidden from git status by assume-unchanged and skip-worktree,
// and building it leaves the worktree's index as it was.
func TestStateTreeReadsTheDisk(t *testing.T) {
	repo, m, git := changesFixture(t)
	os.WriteFile(filepath.Join(m.Path, "a"), []byte("hidden\n"), 0o644)
	git("update-index", "--assume-unchanged", "a")
	os.WriteFile(filepath.Join(m.Path, "b"), []byte("hidden too\n"), 0o644)
	git("update-index", "--skip-worktree", "b")
	os.WriteFile(filepath.Join(m.Path, "new"), []byte("untracked\n"), 0o644)
	if st := git("status", "--porcelain"); st != "?? new" {
		t.Fatalf("fixture: git status should see only the untracked file, got %q", st)
	}
	index := filepath.Join(adminDir(repo, m.Slug), "index")
	before, _ := os.ReadFile(index)
	tree, err := StateTree(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(index)
	if !bytes.Equal(before, after) {
		t.Fatal("StateTree changed the worktree's index")
	}
	got, err := DiffTrees(repo, m.BaseCommit, tree)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "new"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("state tree differs from the base in %v, want %v", got, want)
	}
	if blob := git("cat-file", "-p", tree+":a"); blob != "hidden" {
		t.Fatalf("a in the state tree = %q", blob)
	}
	// Nothing changed on disk: the same tree again.
	again, err := StateTree(repo, m)
	if err != nil || again != tree {
		t.Fatalf("second state tree %s (%v), first %s", again, err, tree)
	}
}

// TestKeptStateSeesEveryChange: the index kept with a state tree tells
// that nothing changed only when nothing did; an edit, a new file, a
// deletion, a mode change, a change under assume-unchanged, and a rewrite
// of the same size whose modification time is put back each make it say
// changed. Nothing of it is left on disk for other code to rewrite.
func TestKeptStateSeesEveryChange(t *testing.T) {
	repo, m, git := changesFixture(t)
	os.WriteFile(filepath.Join(m.Path, "a"), []byte("hidden\n"), 0o644)
	git("update-index", "--assume-unchanged", "a")
	os.WriteFile(filepath.Join(m.Path, "new"), []byte("untracked\n"), 0o644)
	// Older than the index written next: a file as new as the index is
	// one git must look at again (racily clean), which says changed.
	old := time.Now().Add(-time.Minute)
	for _, f := range []string{"a", "new"} {
		os.Chtimes(filepath.Join(m.Path, f), old, old)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	kept, err := KeptStateOf(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	if tree, _ := StateTree(repo, m); tree != kept.Tree {
		t.Fatalf("kept tree %s, StateTree %s", kept.Tree, tree)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the kept index is on disk: %v", left)
	}
	same, err := kept.Unchanged(repo, m)
	if err != nil || !same {
		t.Fatalf("nothing changed, Unchanged = %v (%v)", same, err)
	}
	path := func(name string) string { return filepath.Join(m.Path, name) }
	changes := map[string]struct{ do, undo func() }{
		"edit":   {func() { os.WriteFile(path("c"), []byte("c changed\n"), 0o644) }, func() { os.WriteFile(path("c"), []byte("c\n"), 0o644) }},
		"new":    {func() { os.WriteFile(path("newer"), []byte("x\n"), 0o644) }, func() { os.Remove(path("newer")) }},
		"delete": {func() { os.Remove(path("d")) }, func() { os.WriteFile(path("d"), []byte("d\n"), 0o644) }},
		"mode":   {func() { os.Chmod(path("e"), 0o755) }, func() { os.Chmod(path("e"), 0o644) }},
		"hidden": {func() { os.WriteFile(path("a"), []byte("hidden, again\n"), 0o644) }, func() { os.WriteFile(path("a"), []byte("hidden\n"), 0o644) }},
		"same size, mtime put back": {func() {
			fi, _ := os.Stat(path("g"))
			os.WriteFile(path("g"), []byte("G\n"), 0o644)
			os.Chtimes(path("g"), fi.ModTime(), fi.ModTime())
		}, func() { os.WriteFile(path("g"), []byte("g\n"), 0o644) }},
	}
	for name, c := range changes {
		c.do()
		same, err := kept.Unchanged(repo, m)
		if err != nil || same {
			t.Errorf("%s: Unchanged = %v (%v), want false", name, same, err)
		}
		c.undo()
	}
}

// TestKeptStateSeesARewriteWithinTheSecond: a file rewritten at its size
// within the second of its last change, its modification time put back,
// is the same to git's stat check (whole seconds), and still a change to
// Unchanged, which holds the change time to the nanosecond.
func TestKeptStateSeesARewriteWithinTheSecond(t *testing.T) {
	repo, m, _ := changesFixture(t)
	h := filepath.Join(m.Path, "h")
	for attempt := 0; attempt < 10; attempt++ {
		// Start just after a second begins, so that all of it fits in one.
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 5*time.Millisecond)))
		second := time.Now().Truncate(time.Second)
		old := second.Add(-time.Minute) // not racily clean: older than the index
		os.WriteFile(h, []byte("h\n"), 0o644)
		os.Chtimes(h, old, old)
		kept, err := KeptStateOf(repo, m)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(h, []byte("H\n"), 0o644)
		os.Chtimes(h, old, old)
		if !time.Now().Truncate(time.Second).Equal(second) {
			continue // it took more than the second: again
		}
		if same, err := kept.Unchanged(repo, m); err != nil || same {
			t.Fatalf("a rewrite within the second, mtime put back: Unchanged = %v (%v), want false", same, err)
		}
		return
	}
	t.Fatal("ten attempts, none fitted in one second")
}

// FuzzFlaggedPaths: whatever git ls-files -v -z gives, each flagged path
// comes out whole and NUL-terminated, and only flagged records do.
func FuzzFlaggedPaths(f *testing.F) {
	f.Add([]byte("H a\x00h b\x00S c\x00s d\x00"))
	f.Add([]byte("S \x00x\x00h"))
	f.Fuzz(func(t *testing.T, listing []byte) {
		assumed, skipped := flaggedPaths(listing)
		want := map[string]int{}
		for _, rec := range bytes.Split(listing, []byte{0}) {
			if len(rec) >= 3 && rec[1] == ' ' && (rec[0] == 'S' || rec[0] == 's' || rec[0] >= 'a' && rec[0] <= 'z') {
				want[string(rec[2:])]++
			}
		}
		n := 0
		for _, out := range [][]byte{assumed, skipped} {
			if len(out) > 0 && out[len(out)-1] != 0 {
				t.Fatalf("output not NUL-terminated: %q", out)
			}
			for _, p := range bytes.Split(out, []byte{0}) {
				if len(p) == 0 {
					continue
				}
				if want[string(p)] == 0 {
					t.Fatalf("%q came out but was not flagged in %q", p, listing)
				}
				n++
			}
		}
		if n == 0 && len(want) > 0 {
			t.Fatalf("flagged %v, none came out", want)
		}
	})
}
