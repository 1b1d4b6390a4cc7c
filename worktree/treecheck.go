package worktree

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// The rules below are git's own tree checks (fsck's, which its checkout
// applies too): a tree entry may not name the repository's own directory
// under any alias a file system on which the tree could be checked out
// would take for it, nor climb out of its directory, nor hide a
// .gitmodules behind a symlink. They hold on every platform, as in fsck,
// since a tree travels.

// entryNameProblem says why a tree entry name cannot be checked out, or ""
// when it can. mode is the entry's (canonical) mode.
func entryNameProblem(name string, mode filemode.FileMode) string {
	switch {
	case name == "":
		return "an empty name"
	case strings.IndexByte(name, 0) >= 0:
		return "a NUL byte in a name"
	case strings.IndexByte(name, '/') >= 0:
		return "a name holding '/'"
	case name == ".":
		return "a name '.'"
	case name == "..":
		return "a name '..'"
	case isHFSDotGit(name) || isNTFSDotGit(name):
		return "a name git takes for .git"
	}
	gitmodules := isHFSDotGitmodules(name) || isNTFSDotGitmodules(name)
	// NTFS also splits names at backslashes.
	for rest, i := name, strings.IndexByte(name, '\\'); i >= 0; i = strings.IndexByte(rest, '\\') {
		rest = rest[i+1:]
		if isNTFSDotGit(rest) {
			return "a name git takes for .git"
		}
		gitmodules = gitmodules || isNTFSDotGitmodules(rest)
	}
	if gitmodules && mode == filemode.Symlink {
		return ".gitmodules as a symbolic link"
	}
	return ""
}

// isHFSDotGit: HFS+ folds case and ignores some code points entirely, so
// ".GIT", ".gi\u200ct" and ".git" are one name there.
func isHFSDotGit(name string) bool        { return isHFSDotName(name, "git") }
func isHFSDotGitmodules(name string) bool { return isHFSDotName(name, "gitmodules") }

func isHFSDotName(name, needle string) bool {
	c, name := nextHFSRune(name)
	if c != '.' {
		return false
	}
	for i := 0; i < len(needle); i++ {
		c, name = nextHFSRune(name)
		if c > 127 || lowerASCII(byte(c)) != needle[i] {
			return false
		}
	}
	c, _ = nextHFSRune(name)
	// The end, a separator, or bytes that are not UTF-8 (which HFS+ would
	// not keep as they are) end the alias.
	return c == 0 || c == '/'
}

// nextHFSRune returns the next code point HFS+ does not ignore; 0 at the
// end of the name or at bytes that are not UTF-8 as git decodes it.
func nextHFSRune(s string) (rune, string) {
	for {
		if s == "" {
			return 0, ""
		}
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n <= 1 || r == 0xfffe || r == 0xffff {
			return 0, ""
		}
		s = s[n:]
		switch r {
		case 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
			0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff:
			continue
		}
		return r, s
	}
}

// isNTFSDotGit: NTFS folds case, drops trailing dots and spaces, reaches
// ".git" through its alternate data streams (".git::$INDEX_ALLOCATION")
// and gives it the short name "git~1".
func isNTFSDotGit(name string) bool {
	var rest string
	switch {
	case len(name) >= 4 && name[0] == '.' && strings.EqualFold(name[1:4], "git"):
		rest = name[4:]
	case len(name) >= 5 && strings.EqualFold(name[:3], "git") && name[3:5] == "~1":
		rest = name[5:]
	default:
		return false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '/', '\\', ':':
			return true
		case '.', ' ':
		default:
			return false
		}
	}
	return true
}

// isNTFSDotGitmodules: ".gitmodules" with trailing dots, spaces or an
// alternate data stream (":x"), its short names "gitmod~1".."gitmod~4",
// and the fall-back short names "gi7eba~N".
func isNTFSDotGitmodules(name string) bool {
	const long, short = "gitmodules", "gi7eba"
	onlySpacesAndPeriods := func(rest string) bool {
		for i := 0; i < len(rest); i++ {
			switch rest[i] {
			case ':':
				return true
			case ' ', '.':
			default:
				return false
			}
		}
		return true
	}
	if len(name) > len(long) && name[0] == '.' && strings.EqualFold(name[1:1+len(long)], long) {
		return onlySpacesAndPeriods(name[1+len(long):])
	}
	if len(name) >= 8 && strings.EqualFold(name[:6], long[:6]) && name[6] == '~' && name[7] >= '1' && name[7] <= '4' {
		return onlySpacesAndPeriods(name[8:])
	}
	// Fall-back short name: up to six characters of the hash prefix, a
	// tilde, then digits, eight characters in all.
	sawTilde := false
	i := 0
	for ; i < 8; i++ {
		if i >= len(name) {
			return false
		}
		c := name[i]
		switch {
		case sawTilde:
			if c < '0' || c > '9' {
				return false
			}
		case c == '~':
			i++
			if i >= len(name) || name[i] < '1' || name[i] > '9' {
				return false
			}
			sawTilde = true
		case i >= 6 || c&0x80 != 0 || lowerASCII(c) != short[i]:
			return false
		}
	}
	return onlySpacesAndPeriods(name[i:])
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// rawEntry is one entry of a tree object as stored.
type rawEntry struct {
	name string
	mode filemode.FileMode
	hash [20]byte
}

// parseTree decodes a tree object and applies git's tree rules to it as a
// whole: entries well formed, names valid, sorted as git sorts them, none
// twice (a file and a directory of one name included). Modes are made
// canonical as git reads them (a regular file is 644 or 755).
func parseTree(data []byte) ([]rawEntry, error) {
	var out []rawEntry
	seen := map[string]bool{}
	var prev *rawEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("malformed tree entry (no mode)")
		}
		mode, err := parseMode(data[:sp])
		if err != nil {
			return nil, err
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+20 {
			return nil, fmt.Errorf("malformed tree entry (truncated)")
		}
		e := rawEntry{name: string(data[:nul]), mode: mode}
		copy(e.hash[:], data[nul+1:nul+21])
		data = data[nul+21:]
		if p := entryNameProblem(e.name, e.mode); p != "" {
			return nil, &badEntryError{name: e.name, problem: p}
		}
		if seen[e.name] {
			return nil, &badEntryError{name: e.name, problem: "an entry named twice"}
		}
		seen[e.name] = true
		if prev != nil && compareEntries(prev, &e) > 0 {
			return nil, &badEntryError{name: e.name, problem: "entries out of git's order"}
		}
		out = append(out, e)
		prev = &out[len(out)-1]
	}
	return out, nil
}

// badEntryError names the entry (its full path once known) git would refuse.
type badEntryError struct {
	name, problem string
}

func (e *badEntryError) Error() string {
	return fmt.Sprintf("the tree has %s: %q", e.problem, e.name)
}

// parseMode reads an octal mode as git does (leading zeros allowed) and
// returns it canonical, refusing modes git does not know.
func parseMode(b []byte) (filemode.FileMode, error) {
	var m uint32
	for _, c := range b {
		if c < '0' || c > '7' || m > 1<<24 {
			return 0, fmt.Errorf("malformed tree entry mode %q", b)
		}
		m = m<<3 | uint32(c-'0')
	}
	switch m {
	case 0o100644, 0o100664:
		return filemode.Regular, nil
	case 0o100755:
		return filemode.Executable, nil
	case 0o120000:
		return filemode.Symlink, nil
	case 0o40000:
		return filemode.Dir, nil
	case 0o160000:
		return filemode.Submodule, nil
	}
	return 0, fmt.Errorf("tree entry mode %q is not one git checks out", b)
}

// compareEntries orders entries as git sorts a tree: by name, a
// directory's name compared as if it ended in '/'.
func compareEntries(a, b *rawEntry) int {
	an, bn := a.name, b.name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	ca, cb := nextByte(an, n, a.mode), nextByte(bn, n, b.mode)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

func nextByte(name string, i int, mode filemode.FileMode) int {
	if i < len(name) {
		return int(name[i])
	}
	if mode == filemode.Dir {
		return '/'
	}
	return 0
}
