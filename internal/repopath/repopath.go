// Package repopath normalises repository-relative paths that come from
// untrusted places — plans, agent reports, trees, git's own output — before
// anything matches or writes them. One normaliser for every caller, so that
// a path one part refuses cannot slip through another.
//
// A clean path is slash-separated, relative, has no empty, "." or ".."
// segment, no NUL and no backslash, and no segment git would refuse as a
// name for its own directory (".git" and its case, NTFS and HFS aliases).
package repopath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Error is a path refused by Clean; Path is the path as given.
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("path %q %s", e.Path, e.Reason) }

// ErrRefused matches every *Error with errors.Is.
var ErrRefused = errors.New("path refused")

// Is lets errors.Is(err, ErrRefused) hold for every refused path.
func (e *Error) Is(target error) bool { return target == ErrRefused }

func refuse(p, reason string) error { return &Error{Path: p, Reason: reason} }

// Clean returns p in its one canonical form ("./a//b/" is "a/b"), or an
// error naming why p cannot name a path inside the repository.
func Clean(p string) (string, error) {
	switch {
	case p == "":
		return "", refuse(p, "is empty")
	case strings.IndexByte(p, 0) >= 0:
		return "", refuse(p, "contains a NUL byte")
	case strings.IndexByte(p, '\\') >= 0:
		// A separator on Windows, and so a way to hide ".." or ".git".
		return "", refuse(p, "contains a backslash; paths use / between segments")
	case p[0] == '/':
		return "", refuse(p, "is absolute; paths are relative to the repository root")
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		switch {
		case s == "" || s == ".":
			continue
		case s == "..":
			// Refused even where it would stay inside: "a/../b" is not "b"
			// on disk when a is a symlink.
			return "", refuse(p, "has a .. segment")
		case IsDotGit(s):
			return "", refuse(p, fmt.Sprintf("has a segment %q naming git's own directory", s))
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return "", refuse(p, "names the repository root, not a path inside it")
	}
	// Checked on the clean form, so "./C:x" cannot hide the prefix.
	if hasDrivePrefix(segs[0]) {
		return "", refuse(p, "starts with a drive letter; paths are relative to the repository root")
	}
	return strings.Join(segs, "/"), nil
}

// hasDrivePrefix reports "C:" and the like: absolute on Windows.
func hasDrivePrefix(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// IsDotGit reports whether one path segment would name git's directory on
// some file system git protects: ".git" in any case, with the trailing dots
// and spaces NTFS drops or an NTFS stream suffix (".git::$INDEX_ALLOCATION"),
// its 8.3 short name "git~1", or with the code points HFS+ ignores.
func IsDotGit(seg string) bool {
	s := strings.ToLower(stripHFSIgnorable(seg))
	if s == "git~1" {
		return true
	}
	rest, ok := strings.CutPrefix(s, ".git")
	if !ok {
		return false
	}
	rest = strings.TrimRight(rest, ". ")
	if i := strings.IndexByte(rest, ':'); i >= 0 {
		rest = strings.TrimRight(rest[:i], ". ")
	}
	return rest == ""
}

// stripHFSIgnorable drops the code points HFS+ ignores when it compares
// names, so ".g\u200cit" is ".git" there.
func stripHFSIgnorable(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e,
			r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// LinkTarget returns the clean repository path a symlink at link (a clean
// path) points to, reading its target text as git stores it ("" for the
// root itself), or an error when the target leaves the repository:
// absolute, climbing above the root with "..", or into git's directory. It
// resolves lexically; a chain of links is followed by calling it again on
// the result.
func LinkTarget(link, target string) (string, error) {
	switch {
	case target == "":
		return "", refuse(target, "is an empty symlink target")
	case target[0] == '/' || hasDrivePrefix(target):
		return "", refuse(target, "is an absolute symlink target: it leads outside the repository")
	case strings.IndexByte(target, 0) >= 0 || strings.IndexByte(target, '\\') >= 0:
		return "", refuse(target, "is not a plain symlink target")
	}
	segs := strings.Split(link, "/")
	segs = segs[:len(segs)-1]
	descended := false
	for _, s := range strings.Split(target, "/") {
		switch s {
		case "", ".":
		case "..":
			if descended {
				// "sub/.." is not the link's own directory on disk when
				// sub is itself a link: refuse what cannot be read lexically.
				return "", refuse(target, fmt.Sprintf("(the target of %s) climbs back with .. after descending", link))
			}
			if len(segs) == 0 {
				return "", refuse(target, fmt.Sprintf("(the target of %s) leads outside the repository", link))
			}
			segs = segs[:len(segs)-1]
		default:
			segs, descended = append(segs, s), true
		}
	}
	if len(segs) == 0 {
		return "", nil
	}
	return Clean(strings.Join(segs, "/"))
}

// maxLinkHops bounds a chain of symlinks, as the kernel's ELOOP does.
const maxLinkHops = 40

// ReadLink reports whether the clean path p is a symlink and its target.
// A path that does not exist is no link (nil error): what is not there
// cannot lead anywhere.
type ReadLink func(p string) (target string, isLink bool, err error)

// Resolve follows the symlinks along the clean path p, each one read by
// readLink, and returns where p really is inside the repository ("" for
// the root), or an error naming the link that leads outside. Nothing is
// followed on disk: readLink only reads links.
func Resolve(p string, readLink ReadLink) (string, error) {
	p, err := Clean(p)
	if err != nil {
		return "", err
	}
	for hops := 0; ; {
		segs := strings.Split(p, "/")
		cur, restarted := "", false
		for i, s := range segs {
			next := s
			if cur != "" {
				next = cur + "/" + s
			}
			target, isLink, err := readLink(next)
			if err != nil {
				return "", err
			}
			if !isLink {
				cur = next
				continue
			}
			if hops++; hops > maxLinkHops {
				return "", refuse(p, "goes through too many levels of symlinks")
			}
			t, err := LinkTarget(next, target)
			if err != nil {
				return "", &Error{Path: next, Reason: fmt.Sprintf("is a symlink to %q, which leads outside the repository", target)}
			}
			rest := strings.Join(segs[i+1:], "/")
			switch {
			case t == "" && rest == "":
				return "", nil
			case t == "":
				p = rest
			case rest == "":
				p = t
			default:
				p = t + "/" + rest
			}
			restarted = true
			break
		}
		if !restarted {
			return cur, nil
		}
	}
}

// RootLinks reads links on disk under root without following any.
func RootLinks(root *os.Root) ReadLink {
	return func(p string) (string, bool, error) {
		fi, err := root.Lstat(filepath.FromSlash(p))
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			return "", false, nil
		case err != nil:
			return "", false, err
		case fi.Mode()&fs.ModeSymlink == 0:
			return "", false, nil
		}
		t, err := root.Readlink(filepath.FromSlash(p))
		return filepath.ToSlash(t), true, err
	}
}

// Pathspecs turns clean paths into git pathspecs that match only those
// paths: a file named "*.go" or ":(top)x" is not a pattern for git.
func Pathspecs(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(literal)" + p
	}
	return out
}

// CheckPlain refuses to write the clean path p under root unless every
// component on the way is a real directory (no symlink, even one that
// stays inside) and p itself is absent or a regular file. Writers call it
// and then write through root, which keeps even a racing swap inside.
func CheckPlain(root *os.Root, p string) error {
	segs := strings.Split(p, "/")
	for i := range segs {
		sub := strings.Join(segs[:i+1], "/")
		fi, err := root.Lstat(filepath.FromSlash(sub))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		last := i == len(segs)-1
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symlink; nothing is written through one", sub)
		case !last && !fi.IsDir():
			return fmt.Errorf("%s is not a directory", sub)
		case last && !fi.Mode().IsRegular():
			return fmt.Errorf("%s is not a regular file", sub)
		}
	}
	return nil
}
