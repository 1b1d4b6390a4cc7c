package worktree

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// specIsDotGit restates git's .git aliases another way: what is left of
// the name once HFS+ has dropped its ignored code points and folded case,
// or once NTFS has folded case and dropped trailing dots and spaces.
func specIsDotGit(name string) bool {
	var hfs strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n == 1 || r == 0xfffe || r == 0xffff {
			break // git stops reading at bytes it cannot decode
		}
		i += n
		if strings.ContainsRune("\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u206a\u206b\u206c\u206d\u206e\u206f\ufeff", r) {
			continue
		}
		hfs.WriteRune(r)
	}
	if h := hfs.String(); strings.EqualFold(h, ".git") && len(h) == 4 || len(h) > 4 && strings.EqualFold(h[:4], ".git") && h[4] == '/' {
		return true
	}
	segments := []string{name}
	for i := 0; i < len(name); i++ {
		if name[i] == '\\' {
			segments = append(segments, name[i+1:])
		}
	}
	for _, s := range segments {
		if i := strings.IndexAny(s, "/\\:"); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimRight(s, ". ")
		if strings.EqualFold(s, ".git") || strings.EqualFold(s, "git~1") {
			return true
		}
	}
	return false
}

// FuzzTreeEntryName: a name accepted holds no separator or NUL, does not
// climb, and is no alias of .git by the restated rules; and the verdict
// agrees with that restatement both ways for the .git aliases.
func FuzzTreeEntryName(f *testing.F) {
	for _, n := range nameCases() {
		f.Add(n, false)
	}
	f.Add("h", true)
	f.Add(".gitmodules", true)
	f.Fuzz(func(t *testing.T, name string, symlink bool) {
		mode := filemode.Regular
		if symlink {
			mode = filemode.Symlink
		}
		problem := entryNameProblem(name, mode)
		if problem == "a name git takes for .git" && !specIsDotGit(name) && !strings.Contains(name, "/") {
			t.Fatalf("%q refused as .git, but it is no alias of it", name)
		}
		if problem != "" {
			return
		}
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
			t.Fatalf("%q accepted", name)
		}
		if specIsDotGit(name) {
			t.Fatalf("%q accepted, but it is an alias of .git", name)
		}
		if symlink && (strings.EqualFold(name, ".gitmodules") || strings.EqualFold(strings.TrimRight(name, ". "), "gitmod~1")) {
			t.Fatalf("%q accepted as a symlink", name)
		}
	})
}

// FuzzParseTree: whatever bytes a tree holds, parsing never panics, and
// a tree accepted has valid names, each once, in git's order, and
// encodes back to entries that parse the same.
func FuzzParseTree(f *testing.F) {
	h := strings.Repeat("\x01", 20)
	f.Add([]byte("100644 a\x00" + h + "40000 b\x00" + h))
	f.Add([]byte("120000 h\x00" + h + "40000 h\x00" + h))
	f.Add([]byte("100644 .git\x00" + h))
	f.Add([]byte("0100664 x\x00" + h + "160000 y\x00" + h))
	f.Add([]byte("100644 a-b\x00" + h + "40000 a\x00" + h))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseTree(data)
		if err != nil {
			return
		}
		var again bytes.Buffer
		for i, e := range entries {
			if p := entryNameProblem(e.name, e.mode); p != "" {
				t.Fatalf("accepted %q: %s", e.name, p)
			}
			if i > 0 && compareEntries(&entries[i-1], &e) >= 0 {
				t.Fatalf("accepted %q after %q", e.name, entries[i-1].name)
			}
			again.WriteString(strings.TrimPrefix(e.mode.String(), "0") + " " + e.name + "\x00")
			again.Write(e.hash[:])
		}
		back, err := parseTree(again.Bytes())
		if err != nil || len(back) != len(entries) {
			t.Fatalf("re-encoded tree: %v (%d entries, want %d)", err, len(back), len(entries))
		}
		for i := range back {
			if back[i] != entries[i] {
				t.Fatalf("entry %d: %+v, then %+v", i, entries[i], back[i])
			}
		}
	})
}

// FuzzConversionInPieces: text statistics counted piece by piece equal
// those of the whole content, and the streamed CRLF conversion writes
// what the whole-content one writes.
func FuzzConversionInPieces(f *testing.F) {
	f.Add([]byte("a\r\nb\nc\r"), uint8(3))
	f.Add([]byte("\r\n\r\n\x1a"), uint8(1))
	f.Add([]byte("x\x00\ny\r"), uint8(2))
	f.Fuzz(func(t *testing.T, content []byte, cut uint8) {
		whole := gatherStats(content)
		var s textStats
		step := int(cut%7) + 1
		for i := 0; i < len(content); i += step {
			s.add(content[i:min(i+step, len(content))])
		}
		s.finish()
		s.last, whole.last = 0, 0
		if s != whole {
			t.Fatalf("in pieces of %d: %+v, whole: %+v", step, s, whole)
		}
		for _, c := range []conversion{convCRLF, convAutoCRLF} {
			if !c.converts(whole) {
				continue
			}
			got, err := io.ReadAll(&crlfReader{r: iotest.OneByteReader(bytes.NewReader(content))})
			if err != nil || !bytes.Equal(got, c.apply(content)) {
				t.Fatalf("streamed %q, whole %q (%v)", got, c.apply(content), err)
			}
		}
	})
}
