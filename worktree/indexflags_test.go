package worktree

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIndexUnflagged: an index git wrote says "nothing flagged" only when
// git ls-files -v would list no flag, in each index version; a flag, a
// split index or a damaged file says "ask git".
func TestIndexUnflagged(t *testing.T) {
	repo, m, git := changesFixture(t)
	index := filepath.Join(adminDir(repo, m.Slug), "index")
	os.MkdirAll(filepath.Join(m.Path, "a-long-directory-name", "deeper"), 0o755)
	os.WriteFile(filepath.Join(m.Path, "a-long-directory-name", "deeper", "file-with-a-long-name.txt"), []byte("x\n"), 0o644)
	git("add", "-A")
	for _, v := range []string{"2", "3", "4"} {
		git("update-index", "--index-version", v)
		if !indexUnflagged(index) {
			t.Fatalf("index version %s with no flags: read as flagged", v)
		}
	}
	for _, flag := range [][2]string{{"--assume-unchanged", "--no-assume-unchanged"}, {"--skip-worktree", "--no-skip-worktree"}} {
		for _, v := range []string{"3", "4"} {
			git("update-index", "--index-version", v)
			git("update-index", flag[0], "a")
			if indexUnflagged(index) {
				t.Fatalf("index version %s with %s: read as unflagged", v, flag[0])
			}
			git("update-index", flag[1], "a")
		}
	}
	git("update-index", "--split-index")
	if indexUnflagged(index) {
		t.Fatal("a split index read as whole")
	}
	git("update-index", "--no-split-index")
	if !indexUnflagged(index) {
		t.Fatal("the index, whole again, read as flagged")
	}
	b, _ := os.ReadFile(index)
	os.WriteFile(index, b[:len(b)-30], 0o644)
	if indexUnflagged(index) {
		t.Fatal("a cut index read as unflagged")
	}
}
