package perimeter

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/repopath"
)

// Perimeter globs are slash-separated path patterns: "*" and "?" never
// cross a "/", "[...]" is a character class, and "**" as a whole segment
// matches any number of segments. A pattern whose last segment is a plain
// name names a directory as well as a file and owns everything beneath it
// ("internal/parser" owns "internal/parser/lex.go"; "docs/" is "docs"). A
// last segment with wildcards names files only ("pkg/*.go" does not own
// "pkg/sub/a.go"; "pkg/**" does).

// Glob is a parsed perimeter pattern.
type Glob struct {
	text string // as written
	norm string // normalised: what is matched
	segs []segment
}

// segment is one path segment pattern; nil tokens means "**".
type segment struct {
	any    bool // "**"
	tokens []token
}

type tokenKind int

const (
	tokLiteral tokenKind = iota
	tokAnyChar           // ?
	tokClass             // [...]
	tokStar              // *
)

type token struct {
	kind   tokenKind
	r      rune
	negate bool
	ranges [][2]rune
}

func (t token) matches(r rune) bool {
	switch t.kind {
	case tokLiteral:
		return r == t.r
	case tokAnyChar:
		return r != '/'
	case tokClass:
		in := false
		for _, rg := range t.ranges {
			if r >= rg[0] && r <= rg[1] {
				in = true
				break
			}
		}
		return in != t.negate && r != '/'
	}
	return false
}

// ParseGlob parses a perimeter pattern. It is normalised as a path first
// ("./src//**" is "src/**"): absolute patterns, ".." and ".git" segments,
// backslashes and malformed classes are errors, so a perimeter never
// reaches outside the tree.
func ParseGlob(s string) (Glob, error) {
	g := Glob{text: s}
	if strings.TrimSpace(s) == "" {
		return g, fmt.Errorf("empty pattern")
	}
	clean, err := repopath.Clean(s)
	if err != nil {
		return g, err
	}
	g.norm = clean
	for _, part := range strings.Split(clean, "/") {
		if part == "**" {
			if len(g.segs) == 0 || !g.segs[len(g.segs)-1].any {
				g.segs = append(g.segs, segment{any: true})
			}
			continue
		}
		toks, err := parseSegment(part)
		if err != nil {
			return g, fmt.Errorf("%q: %v", s, err)
		}
		g.segs = append(g.segs, segment{tokens: toks})
	}
	if last := g.segs[len(g.segs)-1]; !last.any && isLiteral(last.tokens) {
		g.segs = append(g.segs, segment{any: true})
	}
	return g, nil
}

func isLiteral(toks []token) bool {
	for _, t := range toks {
		if t.kind != tokLiteral {
			return false
		}
	}
	return true
}

func parseSegment(s string) ([]token, error) {
	var toks []token
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '*':
			if len(toks) == 0 || toks[len(toks)-1].kind != tokStar {
				toks = append(toks, token{kind: tokStar})
			}
		case '?':
			toks = append(toks, token{kind: tokAnyChar})
		case '[':
			t := token{kind: tokClass}
			j := i + 1
			if j < len(rs) && (rs[j] == '!' || rs[j] == '^') {
				t.negate = true
				j++
			}
			start := j
			for ; j < len(rs) && (rs[j] != ']' || j == start); j++ {
				lo := rs[j]
				if j+2 < len(rs) && rs[j+1] == '-' && rs[j+2] != ']' {
					t.ranges = append(t.ranges, [2]rune{lo, rs[j+2]})
					j += 2
					continue
				}
				t.ranges = append(t.ranges, [2]rune{lo, lo})
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unclosed character class")
			}
			toks = append(toks, t)
			i = j
		default:
			toks = append(toks, token{kind: tokLiteral, r: rs[i]})
		}
	}
	return toks, nil
}

// Literal reports whether the pattern has no wildcards: it names one path.
func (g Glob) Literal() bool {
	for _, s := range g.segs[:len(g.segs)-1] {
		if s.any || !isLiteral(s.tokens) {
			return false
		}
	}
	return true
}

// AsFile returns the pattern restricted to the path it names, for a literal
// pattern known to name a file (in the base tree), so that "cmd/main.go"
// does not claim "cmd/main.go/x_test.go".
func (g Glob) AsFile() Glob {
	if g.Literal() && len(g.segs) > 1 && g.segs[len(g.segs)-1].any {
		g.segs = g.segs[:len(g.segs)-1]
	}
	return g
}

// Normal returns the pattern in normal form ("./docs/" is "docs").
func (g Glob) Normal() string { return g.norm }

// String returns the pattern as written.
func (g Glob) String() string { return g.text }

// literalGlob turns a concrete path into a pattern that matches only it (and
// what is beneath it), without interpreting glob characters in the path.
func literalGlob(path string) Glob {
	g := Glob{text: path}
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		var toks []token
		for _, r := range part {
			toks = append(toks, token{kind: tokLiteral, r: r})
		}
		g.segs = append(g.segs, segment{tokens: toks})
	}
	return g
}

// Match reports whether the glob owns path. The path is normalised first;
// one that cannot name a path inside the repository (absolute, "..",
// ".git", NUL, backslash) is owned by no glob, whatever its wildcards.
func (g Glob) Match(path string) bool {
	clean, err := repopath.Clean(path)
	if err != nil {
		return false
	}
	_, ok := intersect(g.segs, literalGlob(clean).segs)
	return ok
}

// Beneath is the pattern of every path strictly under the clean path p,
// which a plan check overlaps with a perimeter to see whether it reaches
// through p.
func Beneath(p string) Glob {
	g := literalGlob(p)
	g.segs = append(g.segs, segment{tokens: []token{{kind: tokAnyChar}, {kind: tokStar}}}, segment{any: true})
	return g
}

// LiteralPrefix is the leading part of the pattern without wildcards:
// "src/gen/*.go" is "src/gen", "docs/a.md" is itself, "**/x" is "".
func (g Glob) LiteralPrefix() string {
	var out string
	for _, s := range g.segs {
		if s.any || !isLiteral(s.tokens) {
			break
		}
		var seg []rune
		for _, t := range s.tokens {
			seg = append(seg, t.r)
		}
		if out != "" {
			out += "/"
		}
		out += string(seg)
	}
	return out
}
