// Package confmerge merges changes to structured config files (JSON, TOML,
// YAML) by key path instead of by line: each change is read as the keys it
// adds, changes or removes relative to a base, two changes that touch the
// same key differently are a collision, and the rest is applied to the file
// keeping its order, indentation and (for TOML and YAML) comments as far as
// the format's library allows.
package confmerge

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Path is a key path: the keys from the document's root to one value.
type Path []string

// ParsePath reads a dotted key path: scripts.test, or with a quoted key
// where a key holds a dot, a quote, an equals sign or a blank:
// contributes."my.command".title. Keys use Go's quoting.
func ParsePath(s string) (Path, error) {
	p, rest, err := scanPath(s, false)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("key path %q: unexpected %q", s, rest)
	}
	return p, nil
}

// ParsePathPair reads OLD=NEW, two key paths split at the first = outside
// quotes.
func ParsePathPair(s string) (Path, Path, error) {
	old, rest, err := scanPath(s, true)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasPrefix(rest, "=") {
		return nil, nil, fmt.Errorf("%q is not OLD=NEW (two key paths)", s)
	}
	nw, err := ParsePath(rest[1:])
	if err != nil {
		return nil, nil, err
	}
	return old, nw, nil
}

// scanPath reads a key path from the start of s, stopping at an unquoted =
// when stopAtEquals is set, and returns what is left.
func scanPath(s string, stopAtEquals bool) (Path, string, error) {
	var p Path
	i := 0
	for {
		var key string
		switch {
		case i < len(s) && s[i] == '"':
			end := closingQuote(s, i)
			if end < 0 {
				return nil, "", fmt.Errorf("key path %q: unclosed quote", s)
			}
			k, err := strconv.Unquote(s[i : end+1])
			if err != nil {
				return nil, "", fmt.Errorf("key path %q: bad quoted key %s", s, s[i:end+1])
			}
			key, i = k, end+1
		default:
			j := i
			for j < len(s) && s[j] != '.' && !(stopAtEquals && s[j] == '=') {
				r := rune(s[j])
				if s[j] == '"' || s[j] == '=' || (r < unicode.MaxASCII && unicode.IsSpace(r)) || s[j] < 0x20 || s[j] == 0x7f {
					return nil, "", fmt.Errorf("key path %q: %q must be inside a quoted key", s, s[j])
				}
				j++
			}
			if j == i {
				return nil, "", fmt.Errorf("key path %q: empty key", s)
			}
			key, i = s[i:j], j
		}
		p = append(p, key)
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		return p, s[i:], nil
	}
}

// closingQuote finds the quote that closes the one at s[open], past
// backslash escapes; -1 if there is none.
func closingQuote(s string, open int) int {
	for j := open + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// String writes p as ParsePath reads it: bare keys where they can be,
// quoted ones elsewhere.
func (p Path) String() string {
	parts := make([]string, len(p))
	for i, k := range p {
		if bare(k) {
			parts[i] = k
		} else {
			parts[i] = strconv.Quote(k)
		}
	}
	return strings.Join(parts, ".")
}

func bare(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r == '.' || r == '"' || r == '=' || r == '\\' || r < 0x20 || r == 0x7f || r == unicode.ReplacementChar || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Equal reports whether p and q name the same key.
func (p Path) Equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// HasPrefix reports whether q is p or one of its ancestors.
func (p Path) HasPrefix(q Path) bool {
	return len(q) <= len(p) && p[:len(q)].Equal(q)
}

func (p Path) child(k string) Path {
	return append(append(Path{}, p...), k)
}
