package worktree

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// The agent writes its worktree's index (git add and commit must work in
// the sandbox). These are the two ways it makes git believe a file holds
// what it staged while the disk holds something else; the state tree —
// what verify records and checkpoint commits — must be the disk.
var indexLies = map[string]func(t *testing.T, m *Meta, git func(...string) string) bool{
	// Stage "X", write "Y" at the same size, mtime put back, within one
	// second: git's stat check (whole seconds) sees nothing.
	"staged within the second": func(t *testing.T, m *Meta, git func(...string) string) bool {
		c := filepath.Join(m.Path, "c")
		old := time.Now().Add(-time.Hour)
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 5*time.Millisecond)))
		second := time.Now().Truncate(time.Second)
		os.WriteFile(c, []byte("X\n"), 0o644)
		os.Chtimes(c, old, old)
		git("add", "c")
		os.WriteFile(c, []byte("Y\n"), 0o644)
		os.Chtimes(c, old, old)
		return time.Now().Truncate(time.Second).Equal(second)
	},
	// Write "Y" (mtime an hour back), then write the index by hand: c's entry names the blob
	// "X" with the stat data of the file on disk, to the nanosecond.
	"index written by hand": func(t *testing.T, m *Meta, git func(...string) string) bool {
		c := filepath.Join(m.Path, "c")
		os.WriteFile(c, []byte("Y\n"), 0o644)
		old := time.Now().Add(-time.Hour) // older than the index: not racily clean
		os.Chtimes(c, old, old)
		evil := filepath.Join(t.TempDir(), "x")
		os.WriteFile(evil, []byte("X\n"), 0o644)
		x := git("hash-object", "-w", evil)
		path := strings.TrimSpace(git("rev-parse", "--git-path", "index"))
		if !filepath.IsAbs(path) {
			path = filepath.Join(m.Path, path)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var idx index.Index
		err = index.NewDecoder(f).Decode(&idx)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var st syscall.Stat_t
		syscall.Lstat(c, &st)
		for _, e := range idx.Entries {
			if e.Name == "c" {
				e.Hash = plumbing.NewHash(x)
				e.CreatedAt = time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
				e.ModifiedAt = time.Unix(st.Mtim.Sec, st.Mtim.Nsec)
				e.Inode, e.Size = uint32(st.Ino), uint32(st.Size)
			}
		}
		idx.Cache = nil
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := index.NewEncoder(out).Encode(&idx); err != nil {
			t.Fatal(err)
		}
		out.Close()
		return true
	},
}

// TestStateTreeIsTheDiskWhateverTheIndexSays: each lie fools git status
// (checked: that is the point of it) and not the state tree, whether the
// checkout's index is kept, the agent committed since, or the worktree
// predates the kept index.
func TestStateTreeIsTheDiskWhateverTheIndexSays(t *testing.T) {
	for lie, tell := range indexLies {
		for _, variant := range []string{"at the checkout", "after a commit", "no index kept"} {
			t.Run(lie+"/"+variant, func(t *testing.T) {
				repo, m, git := changesFixture(t)
				switch variant {
				case "after a commit":
					os.WriteFile(filepath.Join(m.Path, "z"), []byte("z\n"), 0o644)
					git("add", "z")
					git("commit", "-q", "-m", "agent")
				case "no index kept":
					dropCheckoutIndex(repo, m.Slug)
				}
				if variant != "no index kept" {
					if _, _, ok := stateBase(repo, m); !ok {
						t.Fatal("the checkout's index was not kept")
					}
				}
				fooled := false
				for attempt := 0; attempt < 10 && !fooled; attempt++ {
					fooled = tell(t, m, git)
				}
				if !fooled {
					t.Fatal("ten attempts, none fitted in one second")
				}
				if st := git("status", "--porcelain", "--", "c"); st != "M  c" {
					t.Fatalf("git status of c = %q; the lie did not fool git, so the test proves nothing", st)
				}
				if got := stateBlob(t, repo, m, "c"); got != "Y\n" {
					t.Fatalf("the state tree holds c = %q, the disk %q", got, "Y\n")
				}
				if variant == "after a commit" {
					if got := stateBlob(t, repo, m, "z"); got != "z\n" {
						t.Fatalf("the state tree lost the committed z: %q", got)
					}
				}
			})
		}
	}
}

func stateBlob(t *testing.T, repo *gitrepo.Repo, m *Meta, name string) string {
	t.Helper()
	tree, err := StateTree(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := repo.Git("cat-file", "blob", tree+":"+name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckoutIndexIsKeptAndDropped: provisioning keeps the index the
// checkout wrote, under the commit it holds, outside the admin directory
// the sandbox opens; removing the worktree drops it.
func TestCheckoutIndexIsKeptAndDropped(t *testing.T) {
	repo, m, _ := changesFixture(t)
	dir := checkoutIndexDir(repo, m.Slug)
	kept, err := os.ReadDir(dir)
	if err != nil || len(kept) != 1 || kept[0].Name() != m.BaseCommit {
		t.Fatalf("kept %v (%v), want one index named %s", kept, err, m.BaseCommit)
	}
	if strings.HasPrefix(dir, adminDir(repo, m.Slug)) {
		t.Fatalf("kept in the admin directory the agent writes: %s", dir)
	}
	if err := Remove(repo, m, RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the kept index outlived its worktree: %v", err)
	}
}

// TestStateTreeSeesARewriteInTheCheckoutsSecond: a file rewritten at its
// size within the second the checkout wrote it, its modification time put
// back, is the same to git's stat check (whole seconds) against the
// checkout's index; the change time, to the nanosecond, tells it.
func TestStateTreeSeesARewriteInTheCheckoutsSecond(t *testing.T) {
	for attempt := 0; attempt < 10; attempt++ {
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 5*time.Millisecond)))
		repo, m, _ := changesFixture(t)
		c := filepath.Join(m.Path, "c")
		fi, err := os.Stat(c)
		if err != nil {
			t.Fatal(err)
		}
		var st syscall.Stat_t
		syscall.Lstat(c, &st)
		os.WriteFile(c, []byte("Y\n"), 0o644)
		os.Chtimes(c, fi.ModTime(), fi.ModTime())
		var now syscall.Stat_t
		syscall.Lstat(c, &now)
		if now.Ctim.Sec != st.Ctim.Sec {
			continue // the checkout and the rewrite took more than the second: again
		}
		// Read in a later second: an entry as new as the index copied is
		// racily clean, which git reads again anyway.
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 5*time.Millisecond)))
		if got := stateBlob(t, repo, m, "c"); got != "Y\n" {
			t.Fatalf("the state tree holds c = %q, the disk %q", got, "Y\n")
		}
		return
	}
	t.Fatal("ten attempts, none fitted in one second")
}

// TestSmudgeChangedReadsEveryIndexVersion: in indexes of versions 2, 3
// (an extended flag) and 4 (names prefix-compressed, one strip past 127
// bytes), exactly the entry whose file changed is smudged, and git reads
// the result.
func TestSmudgeChangedReadsEveryIndexVersion(t *testing.T) {
	long := strings.Repeat("d", 150)
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			dir := t.TempDir()
			git := func(args ...string) string {
				t.Helper()
				out, err := (&gitrepo.Repo{GitDir: filepath.Join(dir, ".git"), CommonDir: filepath.Join(dir, ".git"), WorkTree: dir}).Git(args...)
				if err != nil {
					t.Fatal(err)
				}
				return string(out)
			}
			git("init", "-q")
			files := []string{"a", long + "/x", long + "/y", "b", "e/f"}
			for _, f := range files {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
				os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644)
			}
			git("add", "-A")
			if version == "3" {
				os.WriteFile(filepath.Join(dir, "n"), []byte("n\n"), 0o644)
				git("add", "-N", "n") // intent-to-add: an extended flag, so version 3
			}
			git("update-index", "--index-version", version)
			b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			if got := binary.BigEndian.Uint32(b[4:8]); strconv.Itoa(int(got)) != version {
				t.Fatalf("index version %d, want %s", got, version)
			}
			time.Sleep(10 * time.Millisecond)
			os.Chmod(filepath.Join(dir, long+"/y"), 0o644) // the change time moves, nothing else
			out, ok := smudgeChanged(b, dir)
			if !ok {
				t.Fatal("smudgeChanged refused the index")
			}
			var idx index.Index
			if err := index.NewDecoder(bytes.NewReader(out)).Decode(&idx); err != nil {
				t.Fatalf("the smudged index does not read: %v", err)
			}
			for _, e := range idx.Entries {
				if smudged := e.Size == 0; smudged != (e.Name == long+"/y") && e.Name != "n" {
					t.Errorf("%s: size %d", e.Name, e.Size)
				}
			}
			os.WriteFile(filepath.Join(dir, ".git", "index"), out, 0o644)
			git("ls-files", "--stage") // git reads it: its checksum holds
		})
	}
}

// FuzzWalkIndex: whatever the bytes, reading them as an index neither
// panics nor walks past them, and a smudged copy, when there is one, is an
// index of the same length whose checksum holds.
func FuzzWalkIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + strings.Repeat("\x00", 20)))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 62) + "\x85\x01a\x00" + strings.Repeat("\x00", 20)))
	f.Fuzz(func(t *testing.T, b []byte) {
		off, ok := walkIndex(b, func(at int, _ uint16, name []byte) bool {
			if at < 12 || at+indexEntryFixed > len(b)-20 {
				t.Fatalf("entry at %d of %d bytes", at, len(b))
			}
			return true
		})
		if ok && (off < 12 || off > len(b)) {
			t.Fatalf("extensions at %d of %d bytes", off, len(b))
		}
		if out, ok := smudgeChanged(b, t.TempDir()); ok {
			end := len(out) - 20
			if sum := sha1.Sum(out[:end]); len(out) != len(b) || !bytes.Equal(sum[:], out[end:]) {
				t.Fatal("the smudged copy is not a whole index")
			}
		}
	})
}
