package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// FuzzPerimeter: whatever path an agent names, Rel either refuses it or
// returns a slash path inside the worktree with no ".." segment, and a
// path CheckWrite allows never touches git metadata.
func FuzzPerimeter(f *testing.F) {
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.Symlink("/etc", filepath.Join(dir, "src", "link"))
	per, err := NewPerimeter(dir, `{"allow":["src","docs/*.md"],"deny":["src/gen"]}`)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"src/a.go", "/etc/passwd", "../x", "src/../../x", "src/link/passwd", ".git/config", "src/.GIT/x",
		"docs/a.md", "docs/sub/a.md", "src/gen/x", "", "\x00", "./src//a", dir + "/src/a", dir + "/../x", "~/.bashrc", "~", "~root/x", "src/~x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		rel, err := per.Rel(path)
		if err != nil {
			return
		}
		if strings.HasPrefix(path, "~") {
			t.Fatalf("Rel(%q) = %q: a tool may take it from a home directory", path, rel)
		}
		if strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/..") {
			t.Fatalf("Rel(%q) = %q leaves the worktree", path, rel)
		}
		if err := per.CheckWrite(rel); err == nil {
			for _, part := range strings.Split(rel, "/") {
				if strings.EqualFold(part, ".git") {
					t.Fatalf("CheckWrite allows %q", rel)
				}
			}
			if under(rel, "src/link") || under(rel, "src/gen") {
				t.Fatalf("CheckWrite allows %q", rel)
			}
		}
	})
}

func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

// FuzzJudge: whatever raw input a permission request carries, a request
// that does not say it only reads is allowed inside a work package only
// when it names a path and every path it names may be written.
func FuzzJudge(f *testing.F) {
	dir := f.TempDir()
	per, err := NewPerimeter(dir, `{"allow":["src"]}`)
	if err != nil {
		f.Fatal(err)
	}
	c := newClient(nil, per, nil, "")
	for _, s := range []string{`{"from":"src/a","to":"/etc/x"}`, `{"file_path":"src/a"}`, `{}`, `{"changes":{"src/a":{"move_path":"docs/b"}}}`,
		`{"edits":[{"path":"src/a"},{"path":"../x"}]}`, `{"input":"*** Begin Patch\n*** Add File: docs/x\n*** End Patch"}`, `[]`, `"src/a"`, `{"uri":"file:///etc/x"}`} {
		for _, k := range []string{"edit", "move", "delete", "other", ""} {
			f.Add(k, s)
		}
	}
	f.Fuzz(func(t *testing.T, kind, input string) {
		var raw any
		if json.Unmarshal([]byte(input), &raw) != nil {
			return
		}
		switch acpsdk.ToolKind(kind) {
		case acpsdk.ToolKindRead, acpsdk.ToolKindSearch, acpsdk.ToolKindThink, acpsdk.ToolKindFetch, acpsdk.ToolKindSwitchMode, acpsdk.ToolKindExecute:
			return
		}
		paths := locations(nil, raw)
		if _, why := c.judge(acpsdk.ToolKind(kind), paths); why != nil {
			return
		}
		if len(paths) == 0 {
			t.Fatalf("%s %s: allowed with no path", kind, input)
		}
		for _, p := range paths {
			rel, err := per.Rel(p)
			if err == nil {
				err = per.CheckWrite(rel)
			}
			if err != nil {
				t.Fatalf("%s %s: allowed, but %s: %v", kind, input, p, err)
			}
		}
	})
}
