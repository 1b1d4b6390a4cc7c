package pipeline

import (
	"os"
	"path/filepath"
	"strings"

	"regexp"
)

// JS/TS is judged by its token shapes, test by test: the assertions a test
// body reaches (not those in a callback it never calls), assertions that
// cannot fail, and catches that drop what they catch.

var (
	jsTest        = regexp.MustCompile("(?m)^\\s*(?:it|test)\\(\\s*(['\"`])(.*?)['\"`]\\s*,")
	jsAssertCall  = regexp.MustCompile(`\bassert(\.\w+)?\s*\(|\bexpect\([^;]*\)\s*\.\s*(?:not\.)?to\w+\(|\.should\.`)
	jsConstAssert = regexp.MustCompile(`\bassert(?:\.ok)?\(\s*(?:true|1|"[^"]*")\s*\)|\.toBeDefined\(\)|\bexpect\([^;]*\)\s*;`)
	jsLitFunc     = regexp.MustCompile(`(?m)^\s*(?:const|let|var)\s+(\w+)\s*=\s*(?:\([^)]*\)|\w+)\s*=>.*$`)
	jsEmptyCatch  = regexp.MustCompile(`\bcatch\s*(?:\(\s*\w*\s*\))?\s*\{\s*\}|\.catch\(\s*(?:\(\s*\w*\s*\)|\w+)\s*=>\s*(?:\{\s*\}|undefined|null)\s*\)`)
	jsBodyStart   = regexp.MustCompile(`=>\s*\{|\bfunction\s*\w*\s*\([^)]*\)\s*\{`)
	jsTryAssert   = regexp.MustCompile(`try\s*\{([^{}]*)\}\s*catch\s*(?:\(\s*\w*\s*\))?\s*\{([^{}]*)\}`)
)

func isJS(p string) bool {
	switch filepath.Ext(p) {
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx":
		return true
	}
	return false
}

func jsFindings(baseDir, headDir string, changed []string) []Finding {
	var fs []Finding
	for _, rel := range changed {
		if !isJS(rel) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(headDir, rel))
		if err != nil {
			continue
		}
		old, _ := os.ReadFile(filepath.Join(baseDir, rel))
		src := string(b)
		line := func(off int) int { return strings.Count(src[:off], "\n") + 1 }
		add := func(code string, off int, why string) {
			fs = append(fs, Finding{Code: code, Severity: "error", File: rel, Line: line(off), Message: why})
		}
		for _, m := range jsEmptyCatch.FindAllStringIndex(src, -1) {
			if !strings.Contains(string(old), src[m[0]:m[1]]) {
				add("error-swallowed", m[0], "a catch drops what it caught: the failure no longer surfaces")
			}
		}
		if !isTestFile(rel) {
			continue
		}
		for _, m := range jsTryAssert.FindAllStringSubmatchIndex(src, -1) {
			try, catch := src[m[2]:m[3]], src[m[4]:m[5]]
			if jsAssertCall.MatchString(try) && !strings.Contains(catch, "throw") {
				add("assertion-swallowed", m[0], "an assertion's failure is caught and dropped: the test passes whatever the code does")
			}
		}
		for _, t := range jsTests(src) {
			if strings.Contains(string(old), src[t.start:t.end]) {
				continue // unchanged since the base
			}
			body := src[t.bodyStart:t.end]
			for _, m := range jsConstAssert.FindAllStringIndex(body, -1) {
				add("assertion-cannot-fail", t.bodyStart+m[0], "this assertion cannot fail")
			}
			live := jsLitFunc.ReplaceAllStringFunc(body, func(def string) string {
				name := jsLitFunc.FindStringSubmatch(def)[1]
				if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\(`).MatchString(body) {
					return def
				}
				return "" // a callback never called asserts nothing
			})
			live = jsConstAssert.ReplaceAllString(live, "")
			if !jsAssertCall.MatchString(live) {
				add("test-no-assertion", t.start, t.name+" asserts nothing that can fail")
			}
		}
	}
	return fs
}

type jsTestSpan struct {
	name                  string
	start, bodyStart, end int
}

// jsTests finds each test(...)/it(...) call and the extent of its body by
// matching braces (strings are skipped).
func jsTests(src string) []jsTestSpan {
	var out []jsTestSpan
	for _, m := range jsTest.FindAllStringSubmatchIndex(src, -1) {
		fn := jsBodyStart.FindStringIndex(src[m[1]:])
		if fn == nil {
			continue
		}
		open := fn[1] - 1
		i, depth := m[1]+open, 0
		var quote byte
		for ; i < len(src); i++ {
			c := src[i]
			switch {
			case quote != 0:
				if c == '\\' {
					i++
				} else if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'' || c == '`':
				quote = c
			case c == '{':
				depth++
			case c == '}':
				depth--
			}
			if depth == 0 && c == '}' {
				break
			}
		}
		if i >= len(src) {
			continue
		}
		out = append(out, jsTestSpan{name: src[m[4]:m[5]], start: m[0], bodyStart: m[1] + open, end: i + 1})
	}
	return out
}
