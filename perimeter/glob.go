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

// Overlap reports whether some path is owned by both globs, and returns one
// such path as an example.
func Overlap(a, b Glob) (string, bool) {
	w, ok := intersect(a.segs, b.segs)
	if !ok {
		return "", false
	}
	if w == "" {
		w = "x"
	}
	if !a.Match(w) || !b.Match(w) {
		// The sample went through a segment that matches only "." or "..",
		// which no clean path holds: say they overlap (refusing is the
		// safe side) without a wrong example.
		return "", true
	}
	return w, true
}

// Example names an overlap's example path for a message.
func Example(w string) string {
	if w == "" {
		return "a path of both"
	}
	return w
}

// intersect decides whether two segment sequences share a path, by a
// memoised walk over both; it returns a witness path.
func intersect(a, b []segment) (string, bool) {
	type key struct{ i, j int }
	failed := map[key]bool{}
	var walk func(i, j int) ([]string, bool)
	walk = func(i, j int) ([]string, bool) {
		if failed[key{i, j}] {
			return nil, false
		}
		if i == len(a) && j == len(b) {
			return nil, true
		}
		if i < len(a) && a[i].any {
			if w, ok := walk(i+1, j); ok {
				return w, true
			}
			if j < len(b) {
				if w, ok := walk(i, j+1); ok {
					return append([]string{sample(b[j])}, w...), true
				}
			}
		}
		if j < len(b) && b[j].any {
			if w, ok := walk(i, j+1); ok {
				return w, true
			}
			if i < len(a) {
				if w, ok := walk(i+1, j); ok {
					return append([]string{sample(a[i])}, w...), true
				}
			}
		}
		if i < len(a) && j < len(b) && !a[i].any && !b[j].any {
			if s, ok := segIntersect(a[i].tokens, b[j].tokens); ok {
				if w, ok := walk(i+1, j+1); ok {
					if s == "" {
						s = "x"
					}
					return append([]string{s}, w...), true
				}
			}
		}
		failed[key{i, j}] = true
		return nil, false
	}
	w, ok := walk(0, 0)
	return strings.Join(w, "/"), ok
}

// sample returns some segment matched by s ("x" for "**").
func sample(s segment) string {
	if s.any {
		return "x"
	}
	// The witness must be a name a path can hold: a star matching nothing
	// made "*." and ".*" give ".", which names no file. A letter at the
	// start, then at the end, is tried first for that reason.
	x := token{kind: tokLiteral, r: 'x'}
	probes := [][]token{{x, {kind: tokStar}}, {{kind: tokStar}, x}, {{kind: tokStar}}}
	for _, probe := range probes {
		if w, ok := segIntersect(s.tokens, probe); ok && w != "" && w != "." && w != ".." {
			return w
		}
	}
	return "x"
}

// segIntersect decides whether two single-segment patterns match a common
// string, and returns one.
func segIntersect(a, b []token) (string, bool) {
	type key struct{ i, j int }
	failed := map[key]bool{}
	var walk func(i, j int) ([]rune, bool)
	walk = func(i, j int) ([]rune, bool) {
		if failed[key{i, j}] {
			return nil, false
		}
		if i == len(a) && j == len(b) {
			return nil, true
		}
		if i < len(a) && a[i].kind == tokStar {
			if w, ok := walk(i+1, j); ok {
				return w, true
			}
			if j < len(b) && b[j].kind != tokStar {
				if r, ok := anyRune(b[j], token{kind: tokAnyChar}); ok {
					if w, ok := walk(i, j+1); ok {
						return append([]rune{r}, w...), true
					}
				}
			}
		}
		if j < len(b) && b[j].kind == tokStar {
			if w, ok := walk(i, j+1); ok {
				return w, true
			}
			if i < len(a) && a[i].kind != tokStar {
				if r, ok := anyRune(a[i], token{kind: tokAnyChar}); ok {
					if w, ok := walk(i+1, j); ok {
						return append([]rune{r}, w...), true
					}
				}
			}
		}
		if i < len(a) && j < len(b) && a[i].kind != tokStar && b[j].kind != tokStar {
			if r, ok := anyRune(a[i], b[j]); ok {
				if w, ok := walk(i+1, j+1); ok {
					return append([]rune{r}, w...), true
				}
			}
		}
		failed[key{i, j}] = true
		return nil, false
	}
	w, ok := walk(0, 0)
	return string(w), ok
}

// anyRune finds a character both single-character tokens accept.
func anyRune(x, y token) (rune, bool) {
	var candidates []rune
	for _, t := range []token{x, y} {
		switch t.kind {
		case tokLiteral:
			candidates = append(candidates, t.r)
		case tokClass:
			for _, rg := range t.ranges {
				candidates = append(candidates, rg[0], rg[1])
			}
		}
	}
	for r := rune('a'); r <= 'z'; r++ {
		candidates = append(candidates, r)
	}
	for r := rune(' '); r < 0x7f; r++ {
		candidates = append(candidates, r)
	}
	for _, r := range candidates {
		if x.matches(r) && y.matches(r) {
			return r, true
		}
	}
	// Classes that differ only outside ASCII: look at their bounds.
	for _, t := range []token{x, y} {
		for _, rg := range t.ranges {
			for _, r := range []rune{rg[0] + 1, rg[1] - 1} {
				if x.matches(r) && y.matches(r) {
					return r, true
				}
			}
		}
	}
	return 0, false
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
