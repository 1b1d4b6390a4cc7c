package judge

import (
	"path"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// Line mutants for any language: small edits of one changed line that a
// test of that line should notice — a comparison or an arithmetic operator
// flipped, a returned value replaced, a condition swapped or negated, the
// statement dropped. They are made from the text, outside string literals
// and comments; the languages review can parse are parsed again after the
// edit, and a mutant that no longer parses is left out (mutate.go).

// family is how a file's lines are read: its comment marker, what a
// dropped statement becomes, the zero value a return is given.
type family struct {
	name    string
	comment string // line comment marker
	drop    string // what a dropped statement is replaced by; "-" when none is safe
	zero    string // the value a replaced return gives
}

var (
	pyFamily    = family{"python", "#", "pass", "None"}
	jsFamily    = family{"js", "//", "", "undefined"}
	shFamily    = family{"shell", "#", ":", "0"}
	awkFamily   = family{"awk", "#", "", "0"}
	cFamily     = family{"c", "//", "", "0"}
	rubyFamily  = family{"ruby", "#", "nil", "nil"}
	otherFamily = family{"other", "#", "-", "0"}
)

// familyOf says how to read a file, from its name and first line; false
// for a file no mutant of which means anything: documentation, data,
// configuration.
func familyOf(name string, first string) (family, bool) {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".py":
		return pyFamily, true
	case ".sh", ".bash", ".zsh", ".ksh":
		return shFamily, true
	case ".awk":
		return awkFamily, true
	case ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".kt", ".rs", ".swift", ".cs", ".php", ".scala", ".dart", ".m", ".groovy":
		return cFamily, true
	case ".rb", ".lua", ".pl", ".pm", ".r", ".ex", ".exs", ".tcl":
		return rubyFamily, true
	}
	if isJS(name) {
		return jsFamily, true
	}
	if ext == "" && strings.HasPrefix(first, "#!") {
		switch {
		case strings.Contains(first, "python"):
			return pyFamily, true
		case strings.Contains(first, "node"):
			return jsFamily, true
		case strings.Contains(first, "awk"):
			return awkFamily, true
		case strings.Contains(first, "sh"):
			return shFamily, true
		}
		return otherFamily, true
	}
	return family{}, false
}

// lineMutant is one mutated line.
type lineMutant struct {
	line     int // 1-based
	what     string
	from, to string
}

var (
	returnLine = lazyre.New(`^(\s*return\s+)(.+?)(\s*;?\s*)$`)
	echoLine   = lazyre.New(`^(\s*(?:echo|print)\s+)(.+?)(\s*;?\s*)$`)
	pyIf       = lazyre.New(`^(\s*(?:if|elif|while)\s+)(.+)(:\s*)$`)
	cIf        = lazyre.New(`^(\s*(?:\}\s*else\s+)?(?:if|while)\s*)\((.+)\)(\s*\{?\s*)$`)
	shIf       = lazyre.New(`^(\s*(?:if|elif|while)\s+)(.+?)(;\s*(?:then|do)\s*)$`)
	// A line that opens, closes or continues a block is no statement.
	notStatement = lazyre.New(`^\s*$|[{(\[:,\\]\s*$|^\s*[})\]]|^\s*(def|class|function|func|fn|else|elif|except|finally|try|case|esac|fi|done|then|do|end|begin|@)\b|^\s*(if|for|while|elif|else)\b`)
)

// flips are the operators flipped, longest first so that === is not read
// as ==; spaced forms only for arithmetic, where a bare - or / is as
// likely an option, a path or a unary sign.
var flips = []struct{ from, to, what, only string }{
	{"===", "!==", "comparison", ""}, {"!==", "===", "comparison", ""},
	{"==", "!=", "comparison", ""}, {"!=", "==", "comparison", ""},
	{"<=", ">", "comparison", ""}, {">=", "<", "comparison", ""},
	{" < ", " >= ", "comparison", ""}, {" > ", " <= ", "comparison", ""},
	{" = ", " != ", "comparison", "shell"},
	{" -eq ", " -ne ", "comparison", ""}, {" -ne ", " -eq ", "comparison", ""},
	{" -lt ", " -ge ", "comparison", ""}, {" -ge ", " -lt ", "comparison", ""},
	{" -gt ", " -le ", "comparison", ""}, {" -le ", " -gt ", "comparison", ""},
	{" && ", " || ", "condition", ""}, {" || ", " && ", "condition", ""},
	{" and ", " or ", "condition", ""}, {" or ", " and ", "condition", ""},
	{" + ", " - ", "arithmetic", ""}, {" - ", " + ", "arithmetic", ""},
	{" * ", " / ", "arithmetic", ""}, {" / ", " * ", "arithmetic", ""},
}

var boolWord = lazyre.New(`\b(true|false|True|False)\b`)

// mutateLine lists the mutants of one line of a file of family f.
func mutateLine(f family, n int, line string) []lineMutant {
	code := codePart(line, f.comment)
	if strings.TrimSpace(code) == "" {
		return nil
	}
	var ms []lineMutant
	add := func(what, to string) {
		if to != line {
			ms = append(ms, lineMutant{line: n, what: what, from: line, to: to})
		}
	}
	if m := returnLine.FindStringSubmatch(code); m != nil && m[2] != f.zero {
		add("its returned value replaced", m[1]+f.zero+m[3]+line[len(code):])
	} else if m := echoLine.FindStringSubmatch(code); m != nil && (f == shFamily || f == awkFamily) && m[2] != f.zero {
		add("its output replaced", m[1]+f.zero+m[3]+line[len(code):])
	}
	if to, ok := negated(f, code); ok {
		add("its condition negated", to+line[len(code):])
	}
	// The shell expands inside double quotes: "$((a - b))" is code.
	masked := maskStrings(code, f == shFamily)
	for _, fl := range flips {
		if f == shFamily && (fl.from == " < " || fl.from == " > ") || fl.only != "" && fl.only != f.name {
			continue // redirections; a family's own operator
		}
		if i := strings.Index(masked, fl.from); i >= 0 {
			add("a "+fl.what+" flipped ("+strings.TrimSpace(fl.from)+" to "+strings.TrimSpace(fl.to)+")", line[:i]+fl.to+line[i+len(fl.from):])
			masked = strings.Repeat(" ", i+len(fl.from)) + masked[i+len(fl.from):]
		}
	}
	if loc := boolWord.FindStringIndex(masked); loc != nil {
		w := line[loc[0]:loc[1]]
		swap := map[string]string{"true": "false", "false": "true", "True": "False", "False": "True"}[w]
		add("a condition swapped ("+w+" to "+swap+")", line[:loc[0]]+swap+line[loc[1]:])
	}
	if f.drop != "-" && !notStatement.MatchString(code) && (f != cFamily || strings.HasSuffix(strings.TrimSpace(code), ";")) {
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		add("the statement dropped", indent+f.drop)
	}
	return ms
}

// negated is the line with its condition negated, where the family's
// syntax for it is known.
func negated(f family, code string) (string, bool) {
	switch f {
	case pyFamily:
		if m := pyIf.FindStringSubmatch(code); m != nil {
			return m[1] + "not (" + m[2] + ")" + m[3], true
		}
	case jsFamily, cFamily:
		if m := cIf.FindStringSubmatch(code); m != nil && balanced(m[2]) {
			return m[1] + "(!(" + m[2] + "))" + m[3], true
		}
	case shFamily:
		if m := shIf.FindStringSubmatch(code); m != nil && !strings.HasPrefix(m[2], "!") {
			return m[1] + "! " + m[2] + m[3], true
		}
	}
	return "", false
}

func balanced(s string) bool {
	depth := 0
	for _, r := range maskStrings(s, false) {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// codePart is the line up to a comment that starts outside a string.
func codePart(line, comment string) string {
	masked := maskStrings(line, false)
	if i := strings.Index(masked, comment); i >= 0 && (comment != "#" || i == 0 || masked[i-1] == ' ' || masked[i-1] == '\t') {
		return strings.TrimRight(line[:i], " \t")
	}
	return line
}

// maskStrings replaces what lies inside quotes by spaces, so that an
// operator or a comment marker is only found in code; keepDouble leaves
// double-quoted text as it is. A quote left open masks the rest of the
// line.
func maskStrings(s string, keepDouble bool) string {
	b := []byte(s)
	var q byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case q == 0 && c == '"' && keepDouble:
		case q == 0 && (c == '"' || c == '\'' || c == '`'):
			q = c
		case q != 0 && c == '\\' && i+1 < len(b):
			b[i], b[i+1] = ' ', ' '
			i++
		case q != 0 && c == q:
			q = 0
		case q != 0:
			b[i] = ' '
		}
	}
	return string(b)
}
