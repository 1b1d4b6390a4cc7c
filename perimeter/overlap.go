package perimeter

import "strings"

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
