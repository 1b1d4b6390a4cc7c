package gitobj

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/testgit"
)

// sampleObjects are a blob of each size class a pack header encodes
// differently, an empty blob, a tree of them and a commit of that tree.
func sampleObjects() []Object {
	rng := rand.New(rand.NewSource(3))
	big := make([]byte, 300<<10) // a size needing three header bytes
	rng.Read(big)
	blobs := []Object{
		New(plumbing.BlobObject, nil),
		New(plumbing.BlobObject, []byte("hello\n")),
		New(plumbing.BlobObject, bytes.Repeat([]byte("line of text\n"), 400)),
		New(plumbing.BlobObject, big),
	}
	entries := map[string][20]byte{}
	for i, b := range blobs {
		entries[fmt.Sprintf("f%d.txt", i)] = b.ID
	}
	tree := FlatTree(entries)
	commit := New(plumbing.CommitObject, []byte("tree "+tree.Hex()+"\n"+
		"author A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nsample\n"))
	return append(blobs, tree, commit)
}

func bareRepo(t *testing.T) string {
	t.Helper()
	testgit.Isolate(t)
	dir := filepath.Join(t.TempDir(), "objs.git")
	testgit.Run(t, t.TempDir(), "init", "-q", "--bare", "-b", "main", dir)
	return dir
}

// checkWithGit asks git for every object: its type, its content and, for
// the whole store, git fsck.
func checkWithGit(t *testing.T, dir string, objs []Object) {
	t.Helper()
	for _, o := range objs {
		if typ := testgit.Run(t, dir, "cat-file", "-t", o.Hex()); typ != o.Type.String() {
			t.Errorf("%s: git says %s, wrote %s", o.Hex(), typ, o.Type)
		}
		cmd := exec.Command("git", "cat-file", o.Type.String(), o.Hex())
		cmd.Dir = dir
		body, err := cmd.Output()
		if err != nil || !bytes.Equal(body, o.Body) {
			t.Errorf("%s: git cat-file gave %d bytes (%v), wrote %d", o.Hex(), len(body), err, len(o.Body))
		}
	}
	commit := objs[len(objs)-1]
	testgit.Run(t, dir, "update-ref", "refs/heads/main", commit.Hex())
	// fsck exits 0 on what it only warns about (a bad file mode, say):
	// anything it says is a failure here.
	if out := testgit.Run(t, dir, "fsck", "--strict", "--full", "--no-dangling", "--no-progress"); out != "" {
		t.Errorf("git fsck:\n%s", out)
	}
}

// TestObjectIDsMatchGit: the id of an object is the one git hash-object
// computes for the same content.
func TestObjectIDsMatchGit(t *testing.T) {
	dir := bareRepo(t)
	for _, o := range sampleObjects() {
		cmd := exec.Command("git", "hash-object", "--literally", "-t", o.Type.String(), "--stdin")
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(o.Body)
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != o.Hex() {
			t.Errorf("%s object of %d bytes: git says %s (%v), New says %s", o.Type, len(o.Body), out, err, o.Hex())
		}
	}
	if New(plumbing.TreeObject, nil).Hex() != EmptyTree {
		t.Errorf("the empty tree is not %s", EmptyTree)
	}
}

func TestWriteLooseGitReads(t *testing.T) {
	dir := bareRepo(t)
	objs := sampleObjects()
	w := Writer{Dir: filepath.Join(dir, "objects")}
	for _, o := range objs {
		if err := w.WriteLoose(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteLoose(objs[1]); err != nil { // already there: kept
		t.Fatal(err)
	}
	checkWithGit(t, dir, objs)
	readBack(t, dir, objs)
}

func TestWritePackGitReads(t *testing.T) {
	dir := bareRepo(t)
	objs := sampleObjects()
	w := Writer{Dir: filepath.Join(dir, "objects")}
	if err := w.WritePack(append(objs, objs[1], objs[2])); err != nil { // twice: once in the pack
		t.Fatal(err)
	}
	idx, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.idx"))
	if len(idx) != 1 {
		t.Fatalf("indexes: %v", idx)
	}
	verify := testgit.Run(t, dir, "verify-pack", "-v", idx[0])
	n := 0
	for _, line := range strings.Split(verify, "\n") {
		if strings.HasPrefix(line, objs[1].Hex()+" ") {
			n++
		}
	}
	if !strings.Contains(verify, ": ok") || n != 1 {
		t.Fatalf("verify-pack (%s listed %d times):\n%s", objs[1].Hex(), n, verify)
	}
	if loose, _ := filepath.Glob(filepath.Join(dir, "objects", "??", "*")); len(loose) != 0 {
		t.Fatalf("a pack write left loose objects: %v", loose)
	}
	checkWithGit(t, dir, objs)
	readBack(t, dir, objs)
}

// readBack reads what was written with the package's own reader.
func readBack(t *testing.T, dir string, objs []Object) {
	t.Helper()
	set := OpenPackSet(dir)
	defer set.Close()
	r := NewReader(set)
	defer r.Close()
	for _, o := range objs {
		typ, data, found, err := r.Read(plumbing.Hash(o.ID), nil)
		if err != nil || !found || typ != o.Type || !bytes.Equal(data, o.Body) {
			t.Errorf("%s: read back %s of %d bytes, found %v, %v", o.Hex(), typ, len(data), found, err)
		}
	}
}

// FuzzPackRoundTrip: any content written as an object, loose or packed,
// has git's id and reads back as written.
func FuzzPackRoundTrip(f *testing.F) {
	f.Add([]byte("hello\n"), uint8(3))
	f.Add([]byte{}, uint8(2))
	f.Add(bytes.Repeat([]byte{0xff}, 5000), uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, kind uint8) {
		typ := []plumbing.ObjectType{plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject}[kind%4]
		o := New(typ, body)
		want := sha1.Sum(append([]byte(fmt.Sprintf("%s %d\x00", typ, len(body))), body...))
		if o.ID != want {
			t.Fatalf("id %s, want %x", o.Hex(), want)
		}
		for _, packed := range []bool{false, true} {
			dir := t.TempDir()
			w := Writer{Dir: filepath.Join(dir, "objects")}
			var err error
			if packed {
				err = w.WritePack([]Object{o})
			} else {
				err = w.WriteLoose(o)
			}
			if err != nil {
				t.Fatal(err)
			}
			set := OpenPackSet(dir)
			r := NewReader(set)
			gotType, data, found, err := r.Read(plumbing.Hash(o.ID), nil)
			r.Close()
			set.Close()
			if err != nil || !found || gotType != typ || !bytes.Equal(data, body) {
				t.Fatalf("packed %v: read %s %q found %v err %v", packed, gotType, data, found, err)
			}
		}
	})
}

// FuzzReadDamagedPack changes one byte of a pack: reading its objects
// never panics, and gives either what was written or an error.
func FuzzReadDamagedPack(f *testing.F) {
	objs := sampleObjects()[1:3]
	dir := f.TempDir()
	w := Writer{Dir: filepath.Join(dir, "objects")}
	if err := w.WritePack(objs); err != nil {
		f.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	orig, err := os.ReadFile(packs[0])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint16(12), uint8(0x10))
	f.Add(uint16(14), uint8(0x01))
	f.Add(uint16(40), uint8(0x80))
	f.Fuzz(func(t *testing.T, at uint16, flip uint8) {
		data := bytes.Clone(orig)
		data[int(at)%len(data)] ^= flip
		dir := t.TempDir()
		packDir := filepath.Join(dir, "objects", "pack")
		os.MkdirAll(packDir, 0o755)
		idx, _ := os.ReadFile(strings.TrimSuffix(packs[0], ".pack") + ".idx")
		os.WriteFile(filepath.Join(packDir, "pack-x.pack"), data, 0o444)
		os.WriteFile(filepath.Join(packDir, "pack-x.idx"), idx, 0o444)
		set := OpenPackSet(dir)
		defer set.Close()
		r := NewReader(set)
		defer r.Close()
		for _, o := range objs {
			_, got, found, err := r.Read(plumbing.Hash(o.ID), nil)
			if err == nil && found && !bytes.Equal(got, o.Body) {
				t.Fatalf("byte %d ^ %#x: %s read as %q with no error", int(at)%len(data), flip, o.Hex(), got)
			}
		}
	})
}

// TestWriteLooseAtOnceGitReads: objects written from many goroutines at
// once, each through a reused zlib writer, are all whole.
func TestWriteLooseAtOnceGitReads(t *testing.T) {
	dir := bareRepo(t)
	w := Writer{Dir: filepath.Join(dir, "objects")}
	var objs []Object
	for i := 0; i < 64; i++ {
		objs = append(objs, New(plumbing.BlobObject, bytes.Repeat([]byte(fmt.Sprintf("object %d\n", i)), 50*i)))
	}
	errs := make(chan error, len(objs))
	for _, o := range objs {
		go func() { errs <- w.WriteLoose(o) }()
	}
	for range objs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	readBack(t, dir, objs)
	for _, o := range objs {
		if typ := testgit.Run(t, dir, "cat-file", "-t", o.Hex()); typ != "blob" {
			t.Errorf("%s: git says %q", o.Hex(), typ)
		}
	}
}

// TestWriteLooseStoresSmallObjects: an object under storeBelow is one
// stored zlib block (git's own form at core.looseCompression 0), one at
// the bound is compressed, and git reads both whole, fsck --strict
// included; so does our reader.
func TestWriteLooseStoresSmallObjects(t *testing.T) {
	dir := bareRepo(t)
	w := Writer{Dir: filepath.Join(dir, "objects")}
	header := func(n int) int { return len(fmt.Sprintf("blob %d\x00", n)) }
	under := bytes.Repeat([]byte("a"), storeBelow-1-header(storeBelow))
	at := bytes.Repeat([]byte("b"), storeBelow-header(storeBelow))
	objs := []Object{New(plumbing.BlobObject, nil), New(plumbing.BlobObject, under), New(plumbing.BlobObject, at)}
	for _, o := range objs {
		if err := w.WriteLoose(o); err != nil {
			t.Fatal(err)
		}
	}
	file := func(o Object) []byte {
		b, err := os.ReadFile(filepath.Join(dir, "objects", o.Hex()[:2], o.Hex()[2:]))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, o := range objs[:2] {
		if f := file(o); len(f) != 2+5+header(len(o.Body))+len(o.Body)+4 || f[2] != 1 {
			t.Errorf("%d bytes: %d bytes on disk, block type %#x; want one stored block", len(o.Body), len(f), f[2])
		}
	}
	if f := file(objs[2]); len(f) >= storeBelow/4 {
		t.Errorf("at the bound: %d bytes on disk for %d of a's, not compressed", len(f), len(objs[2].Body))
	}
	for _, o := range objs {
		cmd := exec.Command("git", "cat-file", "blob", o.Hex())
		cmd.Dir = dir
		if body, err := cmd.Output(); err != nil || !bytes.Equal(body, o.Body) {
			t.Errorf("git cat-file %s: %d bytes (%v), wrote %d", o.Hex(), len(body), err, len(o.Body))
		}
	}
	testgit.Run(t, dir, "fsck", "--strict", "--no-dangling")
	readBack(t, dir, objs)
}

// BenchmarkWriteLoose: one small object, as a ledger event's blob is
// (B/op shows whether each write makes a new zlib writer).
func BenchmarkWriteLoose(b *testing.B) {
	w := Writer{Dir: filepath.Join(b.TempDir(), "objects")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := w.WriteLoose(New(plumbing.BlobObject, []byte(fmt.Sprintf(`{"event":%d,"text":"a ledger event"}`, i)))); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWritePackKeepsNoBufferAlive: the zlib writer a pack was written with
// goes back to the pool without the pack it wrote into, so the pack's
// memory is freed with the next collection, not two later.
func TestWritePackKeepsNoBufferAlive(t *testing.T) {
	dir := bareRepo(t)
	body := make([]byte, 32<<20)
	rand.New(rand.NewSource(1)).Read(body) // incompressible: the pack is as big
	w := Writer{Dir: filepath.Join(dir, "objects")}
	if err := w.WritePack([]Object{New(plumbing.BlobObject, body)}); err != nil {
		t.Fatal(err)
	}
	body = nil
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 16<<20 {
		t.Fatalf("%d MB still reachable after writing a 32 MB pack and a collection", m.HeapAlloc>>20)
	}
}
