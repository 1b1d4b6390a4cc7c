package repopath

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanNormalises(t *testing.T) {
	for in, want := range map[string]string{
		"a":            "a",
		"./a":          "a",
		"a//b":         "a/b",
		"a/./b/":       "a/b",
		"./././a/b//c": "a/b/c",
		".gitignore":   ".gitignore",
		".github/x":    ".github/x",
		"a/.gitx":      "a/.gitx",
		"x.git/y":      "x.git/y",
		"git~2":        "git~2",
		"caf\u00e9/n":  "caf\u00e9/n",
		"a b/c d":      "a b/c d",
		"...":          "...",
		"1:x":          "1:x",
	} {
		got, err := Clean(in)
		if err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestCleanRefuses(t *testing.T) {
	for _, in := range []string{
		"", ".", "./", "/", "//", "/etc/passwd", "//etc/passwd",
		"..", "../x", "a/../../b", "a/../b", "a/..", "./..",
		"a\\b", "..\\x", "a\\..\\..\\b", "C:/x", "c:x", "C:", "./a:", ".//C:x/y",
		"a\x00b", "\x00",
		".git", ".git/hooks/pre-commit", "a/.git/config", ".GIT/x", ".Git",
		".git.", ".git. . ", ".git ", ".git::$INDEX_ALLOCATION/x", "GIT~1/config",
		".g\u200cit/hooks", "\ufeff.git", ".gi\u200dt",
	} {
		if got, err := Clean(in); err == nil {
			t.Errorf("Clean(%q) = %q, want an error", in, got)
		} else if !errors.Is(err, ErrRefused) {
			t.Errorf("Clean(%q): %v does not match ErrRefused", in, err)
		}
	}
}

func TestLinkTarget(t *testing.T) {
	ok := map[[2]string]string{
		{"h", "a"}:         "a",
		{"d/h", "../a/b"}:  "a/b",
		{"d/e/h", "../x"}:  "d/x",
		{"d/h", ".."}:      "",
		{"d/h", "./x//y/"}: "d/x/y",
	}
	for in, want := range ok {
		got, err := LinkTarget(in[0], in[1])
		if err != nil || got != want {
			t.Errorf("LinkTarget(%q, %q) = %q, %v; want %q", in[0], in[1], got, err, want)
		}
	}
	for _, in := range [][2]string{
		{"h", ".."}, {"h", "../x"}, {"d/h", "../../x"}, {"h", "/etc"}, {"h", "/"},
		{"h", ".git/hooks"}, {"d/h", "../.git"}, {"h", ""}, {"h", "a\\b"}, {"h", "C:/x"}, {"h", "sub/../x"}, {"d/h", "../a/../b"},
	} {
		if got, err := LinkTarget(in[0], in[1]); err == nil {
			t.Errorf("LinkTarget(%q, %q) = %q, want an error", in[0], in[1], got)
		}
	}
}

// FuzzClean: a path Clean accepts is canonical (Clean of it is itself),
// local by the standard library's own judgement, and free of every segment
// git refuses; nothing panics.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a/b", "./a//b/", "../x", "/etc", ".git/x", ".GIT./x", "a\\b",
		"git~1", ".g\u200cit", "a/../b", "C:x", "\x00", "...", "a/./.", "\xff/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Clean(in)
		if err != nil {
			if out != "" {
				t.Fatalf("Clean(%q) returned %q with error %v", in, out, err)
			}
			return
		}
		if again, err := Clean(out); err != nil || again != out {
			t.Fatalf("Clean(%q) = %q is not canonical: %q, %v", in, out, again, err)
		}
		if !filepath.IsLocal(out) || path.Clean(out) != out || strings.HasPrefix(out, "/") {
			t.Fatalf("Clean(%q) = %q is not a local path", in, out)
		}
		for _, s := range strings.Split(out, "/") {
			low := strings.ToLower(s)
			if s == "" || s == "." || s == ".." || low == ".git" || strings.ContainsAny(s, "\\\x00") {
				t.Fatalf("Clean(%q) = %q keeps segment %q", in, out, s)
			}
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) = %q broke UTF-8", in, out)
		}
	})
}

// FuzzLinkTarget: a target LinkTarget accepts stays in the repository:
// joined to a root, it is still beneath that root.
func FuzzLinkTarget(f *testing.F) {
	for _, s := range [][2]string{{"h", "../x"}, {"d/h", "../a"}, {"d/e/h", "../../.."}, {"h", "/x"}, {"h", ".git"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, link, target string) {
		link, err := Clean(link)
		if err != nil {
			return
		}
		out, err := LinkTarget(link, target)
		if err != nil {
			return
		}
		const root = "/r/o/o/t"
		full := path.Join(root, path.Dir(link), target)
		if full != root && !strings.HasPrefix(full, root+"/") {
			t.Fatalf("LinkTarget(%q, %q) = %q, but it resolves to %s, outside %s", link, target, out, full, root)
		}
		if rel := strings.TrimPrefix(strings.TrimPrefix(full, root), "/"); rel != out {
			t.Fatalf("LinkTarget(%q, %q) = %q, but path.Join says %q", link, target, out, rel)
		}
		if out != "" {
			if again, err := Clean(out); err != nil || again != out {
				t.Fatalf("LinkTarget(%q, %q) = %q is not clean", link, target, out)
			}
		}
	})
}

func mapLinks(m map[string]string) ReadLink {
	return func(p string) (string, bool, error) {
		t, ok := m[p]
		return t, ok, nil
	}
}

func TestResolve(t *testing.T) {
	links := map[string]string{
		"out":       "../elsewhere",
		"abs":       "/etc",
		"git":       ".git/hooks",
		"in":        "docs/v2",
		"docs/cur":  "v2",
		"docs/up":   "..",
		"loop":      "loop2",
		"loop2":     "loop",
		"via":       "in/../../x",
		"chain":     "docs/up/out",
		"deep/rel":  "../../x",
		"deep/good": "../docs",
	}
	ok := map[string]string{
		"a/b":          "a/b",
		"in/x.md":      "docs/v2/x.md",
		"docs/cur/x":   "docs/v2/x",
		"docs/up/a":    "a",
		"deep/good/x":  "docs/x",
		"docs/up/in/y": "docs/v2/y",
	}
	for in, want := range ok {
		got, err := Resolve(in, mapLinks(links))
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"out", "out/x", "abs/passwd", "git/pre-commit", "loop/x", "via", "chain/x", "deep/rel/y", "../x"} {
		if got, err := Resolve(in, mapLinks(links)); err == nil {
			t.Errorf("Resolve(%q) = %q, want an error", in, got)
		}
	}
}

func TestRootLinksOnDisk(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	for _, d := range []string{"docs/v2", "a"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"out": outside, "rel": "../" + filepath.Base(outside), "docs/cur": "v2"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got, err := Resolve("docs/cur/x", RootLinks(root)); err != nil || got != "docs/v2/x" {
		t.Errorf("Resolve(docs/cur/x) = %q, %v", got, err)
	}
	if got, err := Resolve("a/new/file", RootLinks(root)); err != nil || got != "a/new/file" {
		t.Errorf("Resolve(a/new/file) = %q, %v", got, err)
	}
	for _, p := range []string{"out/x", "rel/x", "out"} {
		if got, err := Resolve(p, RootLinks(root)); err == nil {
			t.Errorf("Resolve(%q) on disk = %q, want an error", p, got)
		}
	}
}
