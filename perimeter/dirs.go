package perimeter

import (
	"slices"
	"strings"
)

// Dirs are the directories, relative to the tree's root, that hold every
// path the globs can match: each glob's leading segments without a
// wildcard ("src/api/**" and "src/api/*.go" give "src/api"; a plain
// "internal/parser" gives itself when isDir says it is a directory, else
// its parent; "docs/" gives "docs"). ok is false when some glob can match at the root ("*.md",
// "**/*.go", "Makefile") or there are no globs: then no directory narrower
// than the whole tree holds them. A directory inside another listed one
// is dropped.
func Dirs(globs []string, isDir func(rel string) bool) (dirs []string, ok bool) {
	for _, s := range globs {
		g, err := ParseGlob(s)
		if err != nil {
			return nil, false
		}
		d := g.staticDir(isDir)
		if d == "" {
			return nil, false
		}
		dirs = append(dirs, d)
	}
	if len(dirs) == 0 {
		return nil, false
	}
	slices.Sort(dirs)
	out := dirs[:0]
	for _, d := range dirs {
		if n := len(out); n > 0 && (d == out[n-1] || strings.HasPrefix(d, out[n-1]+"/")) {
			continue
		}
		out = append(out, d)
	}
	return out, true
}

// staticDir is the directory the glob's matches all lie in ("" for the
// root).
func (g Glob) staticDir(isDir func(rel string) bool) string {
	parts := strings.Split(g.norm, "/")
	n := 0
	for n < len(parts) && parts[n] != "**" && isLiteralText(parts[n]) {
		n++
	}
	named := strings.HasSuffix(g.text, "/") || isDir != nil && isDir(g.norm)
	if n == len(parts) && !named {
		n-- // a plain name may be a file: its directory holds it
	}
	if n <= 0 {
		return ""
	}
	return strings.Join(parts[:n], "/")
}

func isLiteralText(seg string) bool {
	return !strings.ContainsAny(seg, "*?[")
}
