package pipeline

import (
	"os"
	"path/filepath"
	"testing"
)

func TestApplyWiringNeverWritesThroughASymlink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "reg.txt"), []byte("# theirs\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "reg.txt"), []byte("# tools"), 0o750)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink(outside, filepath.Join(dir, "out"))                               // a directory link out
	os.Symlink(filepath.Join(outside, "reg.txt"), filepath.Join(dir, "file"))    // a file link out
	os.Symlink("sub", filepath.Join(dir, "in"))                                  // a link inside, still refused
	os.Symlink(filepath.Join(outside, "x"), filepath.Join(dir, "sub", "dangle")) // dangling, leads out
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, f := range []string{"out/reg.txt", "file", "in/reg.txt", "sub/dangle", "sub"} {
		c := &Consolidation{}
		if _, err := applyWiring(root, []AppliedWiring{{File: f, Line: "evil"}}, c); err == nil {
			t.Errorf("wiring %s was written", f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "reg.txt")); string(b) != "# theirs\n" {
		t.Fatalf("the file outside changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(outside, "x")); err == nil {
		t.Fatal("a dangling link was written through")
	}
	c := &Consolidation{}
	files, err := applyWiring(root, []AppliedWiring{{File: "reg.txt", Line: "a"}, {File: "reg.txt", Line: " a "}, {File: "new/dir/f.txt", Line: "b"}}, c)
	if err != nil || len(files) != 2 {
		t.Fatalf("applyWiring: %v %v", files, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "reg.txt")); string(b) != "# tools\na\n" {
		t.Fatalf("reg.txt = %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "reg.txt")); fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v not kept", fi.Mode())
	}
	if c.Wiring[1].Status != WiringPresent || c.Wiring[2].Status != WiringApplied {
		t.Fatalf("statuses %+v", c.Wiring)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.agentproto-wiring")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}
