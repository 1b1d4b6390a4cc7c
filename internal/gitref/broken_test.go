package gitref

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

func newRepo(t *testing.T) (dir, commit string) {
	t.Helper()
	dir = t.TempDir()
	if _, err := gitIn(t, dir, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "c"); err != nil {
		t.Fatal(err)
	}
	commit, err := gitIn(t, dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return dir, commit
}

// Read takes a loose ref file as git does: what git resolves, Read returns;
// what git calls broken, Read refuses, naming the ref.
func TestReadAgreesWithGitOnLooseRefFiles(t *testing.T) {
	dir, c := newRepo(t)
	common := filepath.Join(dir, ".git")
	const name = "refs/agentproto/ledger/w-test"
	contents := []string{c + "\n", c, c + "\r\n", c + " trailing words\n", strings.ToUpper(c) + "\n", c + "\t\n",
		"", "\n", " " + c + "\n", c[:39] + "\n", c + "0\n", c + "g\n", "garbage\n", "\x00\x00\x00", c[:20] + "\n" + c[20:] + "\n"}
	for _, content := range contents {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(common, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(common, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		want, gitErr := gitIn(t, dir, "rev-parse", "--verify", "-q", name)
		got, err := Store{Common: common}.Read(name)
		if gitErr != nil {
			var b BrokenRef
			if !errors.As(err, &b) || b.Name != name {
				t.Errorf("content %q: git calls the ref broken, Read = %q, %v", content, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("content %q: git resolves %s, Read = %q, %v", content, want, got, err)
		}
	}
}

// A ref that cannot be read fails List and is named by ListAll; it is never
// left out as if absent.
func TestListNamesBrokenRefs(t *testing.T) {
	dir, c := newRepo(t)
	common := filepath.Join(dir, ".git")
	s := Store{Common: common}
	for _, r := range []string{"refs/agentproto/ledger/w-good", "refs/agentproto/ledger/w-empty", "refs/agentproto/ledger/w-junk"} {
		if err := s.Update(r, c, ""); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(common, "refs/agentproto/ledger/w-empty"), nil, 0o644)
	os.WriteFile(filepath.Join(common, "refs/agentproto/ledger/w-junk"), []byte("\x7fELF...."), 0o644)
	_, err := s.List("refs/agentproto/ledger/")
	var b BrokenRef
	if !errors.As(err, &b) || !strings.Contains(err.Error(), "refs/agentproto/ledger/w-empty") || !strings.Contains(err.Error(), "is empty") {
		t.Fatalf("List err = %v", err)
	}
	refs, broken, err := s.ListAll("refs/agentproto/ledger/")
	if err != nil || len(refs) != 1 || refs["refs/agentproto/ledger/w-good"] != c || len(broken) != 2 || broken[1].Name != "refs/agentproto/ledger/w-junk" {
		t.Fatalf("ListAll = %v %+v %v", refs, broken, err)
	}
	// An update never takes a broken ref for a missing one.
	if err := s.Update("refs/agentproto/ledger/w-empty", c, ""); !errors.As(err, &b) {
		t.Fatalf("update over a broken ref: %v", err)
	}
	// A packed line without an object id is broken too, unless a good
	// loose file stands for the ref.
	os.Remove(filepath.Join(common, "refs/agentproto/ledger/w-empty"))
	os.Remove(filepath.Join(common, "refs/agentproto/ledger/w-junk"))
	os.WriteFile(filepath.Join(common, "packed-refs"), []byte("# pack-refs with: peeled fully-peeled sorted\n"+c+" refs/agentproto/ledger/w-good\nnot-an-oid refs/agentproto/ledger/w-packed\n"), 0o644)
	refs, broken, err = s.ListAll("refs/agentproto/ledger/")
	if err != nil || len(refs) != 1 || len(broken) != 1 || broken[0].Name != "refs/agentproto/ledger/w-packed" {
		t.Fatalf("packed: %v %+v %v", refs, broken, err)
	}
	if _, err := s.Read("refs/agentproto/ledger/w-packed"); !errors.As(err, &b) {
		t.Fatalf("Read of a broken packed ref: %v", err)
	}
}

// FuzzRefFile feeds arbitrary loose ref files and packed-refs lines to the
// parsers: they never panic, what they accept is a lowercase object id, and
// an accepted id written back the way git writes it reads the same.
func FuzzRefFile(f *testing.F) {
	const c = "0123456789abcdef0123456789abcdef01234567"
	for _, s := range []string{c + "\n", c, strings.ToUpper(c) + "\r\n", c + " x", "", "ref: refs/heads/main\n", "ref:", c[:39], c + "0", c + " refs/agentproto/ledger/w-x", "^" + c, "# pack-refs with: peeled"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		oid, symbolic, ok := parseLoose(b)
		if ok && !symbolic {
			if !ValidOID(oid) {
				t.Fatalf("parseLoose(%q) = %q, not an object id", b, oid)
			}
			if again, _, ok2 := parseLoose([]byte(oid + "\n")); !ok2 || again != oid {
				t.Fatalf("%q does not read back as itself: %q %v", oid, again, ok2)
			}
			if !strings.EqualFold(oid, string(b[:40])) {
				t.Fatalf("parseLoose(%q) = %q", b, oid)
			}
		}
		if symbolic && oid != "" {
			t.Fatalf("symbolic ref %q returned an id %q", b, oid)
		}
		if oid, name, ok := parsePackedLine(b); ok && (!ValidOID(oid) || len(name) == 0 || !strings.HasPrefix(string(b), oid+" ")) {
			t.Fatalf("parsePackedLine(%q) = %q %q", b, oid, name)
		}
	})
}
