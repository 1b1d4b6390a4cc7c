package gitobj

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/testgit"
)

// historyRepo makes a repository whose files went through many revisions,
// so that repacking stores most of them as chains of deltas, with an
// executable, a symlink, an empty file and an incompressible binary.
func historyRepo(t *testing.T) string {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	rng := rand.New(rand.NewSource(7))
	lines := make([]string, 400)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of the shared text %d", i, rng.Int())
	}
	write := func(name string, data []byte, mode os.FileMode) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	for rev := 0; rev < 60; rev++ {
		for f := 0; f < 6; f++ {
			lines[rng.Intn(len(lines))] = fmt.Sprintf("revision %d file %d %d", rev, f, rng.Int())
			write(fmt.Sprintf("src/d%d/file%d.txt", f%3, f), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		}
		testgit.Run(t, dir, "add", "-A")
		testgit.Run(t, dir, "commit", "-q", "-m", "revision "+strconv.Itoa(rev))
	}
	big := make([]byte, 1<<20)
	rng.Read(big)
	write("bin/blob.dat", big, 0o644)
	write("bin/tool.sh", []byte("#!/bin/sh\necho tool\n"), 0o755)
	write("empty", nil, 0o644)
	if err := os.Symlink("src/d0/file0.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "odd files")
	return dir
}

// catFileAll returns every object git knows in dir, by id.
func catFileAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	objs := map[string][]byte{}
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		head, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		f := strings.Fields(head)
		size, _ := strconv.Atoi(f[2])
		body := make([]byte, size+1)
		if _, err := io.ReadFull(rd, body); err != nil {
			t.Fatal(err)
		}
		objs[f[0]] = body[:size]
	}
	return objs
}

// TestObjectReaderMatchesGit reads every object of the packs, stored whole,
// as offset deltas and as reference deltas, and compares it with what git
// itself reads.
func TestObjectReaderMatchesGit(t *testing.T) {
	dir := historyRepo(t)
	for _, layout := range []struct {
		name   string
		repack []string
	}{
		{"offset-deltas", []string{"repack", "-adfq", "--depth=50", "--window=50"}},
		{"ref-deltas", []string{"-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=50", "--window=50"}},
	} {
		t.Run(layout.name, func(t *testing.T) {
			testgit.Run(t, dir, layout.repack...)
			stats := testgit.Run(t, dir, "verify-pack", "-s", mustGlob(t, filepath.Join(dir, ".git/objects/pack/*.idx")))
			if !strings.Contains(stats, "chain length = 10") {
				t.Fatalf("the repack made no long delta chains, the test proves nothing:\n%s", stats)
			}
			want := catFileAll(t, dir)
			set := OpenPackSet(filepath.Join(dir, ".git"))
			defer set.Close()
			if len(set.packs) != 1 {
				t.Fatalf("mapped %d packs, want 1", len(set.packs))
			}
			r := NewReader(set)
			defer r.Close()
			var buf []byte
			for id, body := range want {
				_, data, found, err := r.Read(plumbing.NewHash(id), buf)
				if err != nil || !found {
					t.Fatalf("%s: found=%v err=%v", id, found, err)
				}
				if !bytes.Equal(data, body) {
					t.Fatalf("%s: read %d bytes that differ from git's %d", id, len(data), len(body))
				}
				buf = data[:0]
			}
			_, _, found, err := r.Read(plumbing.NewHash(strings.Repeat("ab", 20)), nil)
			if found || err != nil {
				t.Fatalf("an absent object: found=%v err=%v", found, err)
			}
		})
	}
}

func mustGlob(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Fatalf("%s matched %v", pattern, m)
	}
	return m[0]
}

// TestLooseReaderMatchesGit reads every loose object with one reader, whose
// inflater and buffers serve one object after the other, after a stream
// left half read, and compares each with what git reads.
func TestLooseReaderMatchesGit(t *testing.T) {
	dir := historyRepo(t)
	want := catFileAll(t, dir)
	set := OpenPackSet(filepath.Join(dir, ".git"))
	defer set.Close()
	if len(set.packs) != 0 {
		t.Fatalf("mapped %d packs; the objects must be loose", len(set.packs))
	}
	r := NewReader(set)
	defer r.Close()
	big := testgit.Run(t, dir, "rev-parse", "HEAD:bin/blob.dat")
	_, _, stream, found, err := r.ReadOrStream(plumbing.NewHash(big), nil, 4096)
	if err != nil || !found || stream == nil {
		t.Fatalf("streaming %s: found=%v stream=%v err=%v", big, found, stream != nil, err)
	}
	if _, err := io.ReadFull(stream, make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	stream.(io.Closer).Close() // left half read
	var buf []byte
	for id, body := range want {
		_, data, found, err := r.Read(plumbing.NewHash(id), buf)
		if err != nil || !found || !bytes.Equal(data, body) {
			t.Fatalf("%s: found=%v err=%v, %d bytes where git reads %d", id, found, err, len(data), len(body))
		}
		buf = data[:0]
	}
	_, _, stream, _, err = r.ReadOrStream(plumbing.NewHash(big), nil, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if whole, err := io.ReadAll(stream); err != nil || !bytes.Equal(whole, want[big]) {
		t.Fatalf("the stream of %s after the others: %d bytes, err %v", big, len(whole), err)
	}
}
