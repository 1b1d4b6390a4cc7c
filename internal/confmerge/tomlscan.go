package confmerge

import (
	"fmt"
	"strconv"
	"strings"
)

// tomlScan is where a TOML file's tables and keys are, by line: enough to
// edit a key in place without a parser that keeps comments.
type tomlScan struct {
	lines   int
	headers []tomlHeader
	kvs     []tomlKV
}

type tomlHeader struct {
	path Path
	arr  bool // [[array of tables]]
	line int
}

type tomlKV struct {
	section    Path
	inArray    bool // the section is an array of tables
	key        Path
	start, end int // the lines the key and its value span
	indent     string
}

func scanTOML(lines []string) (*tomlScan, error) {
	sc := &tomlScan{lines: len(lines)}
	var section Path
	inArray := false
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || t[0] == '#' {
			continue
		}
		if t[0] == '[' {
			arr := strings.HasPrefix(t, "[[")
			open, close := "[", "]"
			if arr {
				open, close = "[[", "]]"
			}
			p, rest, err := tomlKeyPrefix(t[len(open):])
			if err != nil || !strings.HasPrefix(rest, close) {
				return nil, fmt.Errorf("line %d: cannot read the table header", i+1)
			}
			section, inArray = p, arr
			sc.headers = append(sc.headers, tomlHeader{path: p, arr: arr, line: i})
			continue
		}
		key, rest, err := tomlKeyPrefix(t)
		if err != nil || !strings.HasPrefix(rest, "=") {
			return nil, fmt.Errorf("line %d: cannot read the key", i+1)
		}
		end, err := valueEnd(lines, i, strings.Index(lines[i], "=")+1)
		if err != nil {
			return nil, err
		}
		indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
		sc.kvs = append(sc.kvs, tomlKV{section: section, inArray: inArray, key: key, start: i, end: end, indent: indent})
		i = end
	}
	return sc, nil
}

func (sc *tomlScan) find(p Path) (tomlKV, bool) {
	for _, kv := range sc.kvs {
		if !kv.inArray && append(append(Path{}, kv.section...), kv.key...).Equal(p) {
			return kv, true
		}
	}
	return tomlKV{}, false
}

// tableEnd is the line a new key of table goes before, and the indent of
// the keys there; false when the file has no such table header (the root
// always has one).
func (sc *tomlScan) tableEnd(table Path) (int, string, bool) {
	at, found := -1, len(table) == 0
	for _, h := range sc.headers {
		if !h.arr && h.path.Equal(table) {
			at, found = h.line+1, true
		}
	}
	if !found {
		return 0, "", false
	}
	indent := ""
	for _, kv := range sc.kvs {
		if !kv.inArray && kv.section.Equal(table) {
			at, indent = kv.end+1, kv.indent
		}
	}
	if at < 0 { // the root, no key yet: before the first table
		at = sc.lines
		if len(sc.headers) > 0 {
			at = sc.headers[0].line
		}
	}
	return at, indent, true
}

// dottedUnder finds the last key whose dotted name makes table, which no
// header names.
func (sc *tomlScan) dottedUnder(table Path) (tomlKV, bool) {
	var last tomlKV
	ok := false
	for _, kv := range sc.kvs {
		full := append(append(Path{}, kv.section...), kv.key...)
		if !kv.inArray && len(kv.section) < len(table) && len(full) > len(table) && full.HasPrefix(table) {
			last, ok = kv, true
		}
	}
	return last, ok
}

// tomlKeyPrefix reads a dotted TOML key from the start of s (blanks
// around it and its dots allowed) and returns what follows it.
func tomlKeyPrefix(s string) (Path, string, error) {
	var p Path
	s = strings.TrimLeft(s, " \t")
	for {
		var k string
		switch {
		case strings.HasPrefix(s, `"`):
			end := closingQuote(s, 0)
			if end < 0 {
				return nil, "", fmt.Errorf("unclosed quoted key")
			}
			u, err := strconv.Unquote(s[:end+1])
			if err != nil {
				return nil, "", err
			}
			k, s = u, s[end+1:]
		case strings.HasPrefix(s, "'"):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", fmt.Errorf("unclosed literal key")
			}
			k, s = s[1:end+1], s[end+2:]
		default:
			j := 0
			for j < len(s) && (tomlBare(s[j : j+1])) {
				j++
			}
			if j == 0 {
				return nil, "", fmt.Errorf("empty key")
			}
			k, s = s[:j], s[j:]
		}
		p = append(p, k)
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return p, s, nil
		}
		s = strings.TrimLeft(s[1:], " \t")
	}
}

// valueEnd is the last line of the value that starts at lines[i][col]:
// arrays, inline tables and multi-line strings may go on over lines.
func valueEnd(lines []string, i, col int) (int, error) {
	depth := 0
	ml := "" // the delimiter of an open multi-line string
	for ; i < len(lines); i, col = i+1, 0 {
		l := lines[i]
	line:
		for j := col; j < len(l); j++ {
			if ml != "" {
				if l[j] == '\\' && ml == `"""` {
					j++
					continue
				}
				if strings.HasPrefix(l[j:], ml) {
					j += 2
					ml = ""
				}
				continue
			}
			switch c := l[j]; c {
			case '#':
				break line
			case '"', '\'':
				delim := strings.Repeat(string(c), 3)
				if strings.HasPrefix(l[j:], delim) {
					ml, j = delim, j+2
					continue
				}
				k := j + 1
				for ; k < len(l) && l[k] != c; k++ {
					if c == '"' && l[k] == '\\' {
						k++
					}
				}
				if k >= len(l) {
					return 0, fmt.Errorf("line %d: unclosed string", i+1)
				}
				j = k
			case '[', '{':
				depth++
			case ']', '}':
				depth--
			}
		}
		if depth <= 0 && ml == "" {
			return i, nil
		}
	}
	return 0, fmt.Errorf("a value runs to the end of the file")
}
