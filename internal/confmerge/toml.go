package confmerge

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// tomlFormat reads TOML with the module's decoder, which keeps no
// comments, so a change is made as an edit of the file's lines: a key's
// line replaced or removed, a new key added at the end of its table, a new
// table at the end of the file. The edited text must read back as the
// merge; when it does not (a key inside an inline table, an array of
// tables), the file is written whole by the encoder, losing its comments.
type tomlFormat struct{}

func (tomlFormat) Name() string { return "TOML" }

func (tomlFormat) Parse(b []byte) (any, error) {
	var m map[string]any
	if _, err := toml.Decode(string(b), &m); err != nil {
		return nil, err
	}
	return fromTOML(m), nil
}

func fromTOML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := NewObj()
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.Set(k, fromTOML(t[k]))
		}
		return o
	case []map[string]any:
		a := make([]any, len(t))
		for i, x := range t {
			a[i] = fromTOML(x)
		}
		return a
	case []any:
		a := make([]any, len(t))
		for i, x := range t {
			a[i] = fromTOML(x)
		}
		return a
	}
	return v
}

func (f tomlFormat) Render(orig []byte, doc any, d Delta, want any) ([]byte, bool, error) {
	text, err := tomlEdits(string(orig), doc, d, want)
	if err == nil {
		if got, perr := f.Parse([]byte(text)); perr == nil && Equal(got, want) {
			return []byte(text), false, nil
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(plain(want, false)); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), true, nil
}

// tomlEdits makes d on text line by line; an error means a change it
// cannot place.
func tomlEdits(text string, doc any, d Delta, want any) (string, error) {
	var err error
	tables := map[string]bool{} // arrays of tables already appended to
	for _, o := range d {
		switch {
		case o.Kind == Append && tableArray(text, doc, o):
			if !tables[o.Key] {
				tables[o.Key] = true
				text, err = appendTables(text, doc, o.Path, want)
			}
		case o.Kind == Remove:
			text, err = tomlRemove(text, o.Path)
		case o.Kind == Set && isEmptyObj(o.Value):
			text, err = tomlTable(text, o.Path)
		default:
			// A set or append writes the leaves as the merge has them.
			for _, leaf := range Leaves(subtree(o)) {
				p := append(append(Path{}, o.Path...), leaf.Path...)
				v, _ := lookup(want, p)
				if isEmptyObj(v) {
					text, err = tomlTable(text, p)
				} else {
					text, err = tomlSet(text, p, v)
				}
				if err != nil {
					break
				}
			}
		}
		if err != nil {
			return "", err
		}
	}
	return text, nil
}

// subtree is the object o's leaves are read from: its value when that is
// a non-empty object, else a leaf at o's own path.
func subtree(o Op) any {
	if obj, ok := o.Value.(*Obj); ok && len(obj.Keys) > 0 && o.Kind == Set {
		return obj
	}
	return nil
}

func isEmptyObj(v any) bool {
	o, ok := v.(*Obj)
	return ok && len(o.Keys) == 0
}

func tomlSet(text string, p Path, v any) (string, error) {
	val, err := tomlValue(v)
	if err != nil {
		return "", err
	}
	lines := strings.Split(text, "\n")
	sc, err := scanTOML(lines)
	if err != nil {
		return "", err
	}
	if kv, ok := sc.find(p); ok {
		return splice(lines, kv.start, kv.end+1, kv.indent+tomlKey(kv.key)+" = "+val), nil
	}
	table, key := p[:len(p)-1], p[len(p)-1:]
	if at, indent, ok := sc.tableEnd(table); ok {
		if at == len(lines) && lines[at-1] == "" {
			at-- // before the file's last newline
		}
		return splice(lines, at, at, indent+tomlKey(key)+" = "+val), nil
	}
	if kv, ok := sc.dottedUnder(table); ok {
		rel := p[len(kv.section):]
		return splice(lines, kv.end+1, kv.end+1, kv.indent+tomlKey(rel)+" = "+val), nil
	}
	return appendTable(lines, table, tomlKey(key)+" = "+val), nil
}

func tomlRemove(text string, p Path) (string, error) {
	lines := strings.Split(text, "\n")
	sc, err := scanTOML(lines)
	if err != nil {
		return "", err
	}
	if kv, ok := sc.find(p); ok {
		return splice(lines, kv.start, kv.end+1), nil
	}
	return "", fmt.Errorf("%s is not a key line of its own", p)
}

func tomlTable(text string, p Path) (string, error) {
	lines := strings.Split(text, "\n")
	sc, err := scanTOML(lines)
	if err != nil {
		return "", err
	}
	if _, _, ok := sc.tableEnd(p); ok {
		return text, nil
	}
	return appendTable(lines, p), nil
}

// appendTable adds [table] and its lines at the end of the file.
func appendTable(lines []string, table Path, body ...string) string {
	header := ""
	if len(table) > 0 {
		header = "[" + tomlKey(table) + "]"
	}
	return appendBlock(lines, header, body)
}

// appendBlock adds a blank line, header (unless empty) and body at the end
// of the file.
func appendBlock(lines []string, header string, body []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	var add []string
	if len(lines) > 0 {
		add = append(add, "")
	}
	if header != "" {
		add = append(add, header)
	}
	add = append(add, body...)
	return strings.Join(append(lines, append(add, "")...), "\n")
}

func splice(lines []string, from, to int, with ...string) string {
	out := append(append(append([]string{}, lines[:from]...), with...), lines[to:]...)
	return strings.Join(out, "\n")
}

// tomlValue is v written as a TOML value on one line.
func tomlValue(v any) (string, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"v": plain(v, false)}); err != nil {
		return "", err
	}
	s, ok := strings.CutPrefix(buf.String(), "v = ")
	s = strings.TrimSuffix(s, "\n")
	if !ok || strings.Contains(s, "\n") {
		return "", fmt.Errorf("the value does not fit on one line")
	}
	return s, nil
}

// tomlKey writes a dotted key, quoting the keys that are not bare.
func tomlKey(p Path) string {
	parts := make([]string, len(p))
	for i, k := range p {
		parts[i] = k
		if !tomlBare(k) {
			parts[i] = tomlQuote(k)
		}
	}
	return strings.Join(parts, ".")
}

func tomlBare(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tableArray reports whether the array o appends to is, or can be made,
// an array of tables ([[p]] blocks): the file writes it so, or it is new
// and every element o adds is a table.
func tableArray(text string, doc any, o Op) bool {
	if _, ok := lookup(doc, o.Path); !ok {
		add, _ := o.Value.([]any)
		for _, e := range add {
			if _, ok := e.(*Obj); !ok {
				return false
			}
		}
		return len(add) > 0
	}
	sc, err := scanTOML(strings.Split(text, "\n"))
	if err != nil {
		return false
	}
	for _, h := range sc.headers {
		if h.arr && h.path.Equal(o.Path) {
			return true
		}
	}
	return false
}

// appendTables adds a [[p]] block at the end of the file for each element
// the merge appends to the array of tables at p.
func appendTables(text string, doc any, p Path, want any) (string, error) {
	have := 0
	if cur, ok := lookup(doc, p); ok {
		arr, _ := cur.([]any)
		have = len(arr)
	}
	all, _ := lookup(want, p)
	arr, _ := all.([]any)
	lines := strings.Split(text, "\n")
	for _, e := range arr[min(have, len(arr)):] {
		obj, ok := e.(*Obj)
		if !ok {
			return "", fmt.Errorf("%s holds an element that is not a table", p)
		}
		body := []string{}
		for _, k := range obj.Keys {
			v, err := tomlValue(obj.M[k])
			if err != nil {
				return "", err
			}
			body = append(body, tomlKey(Path{k})+" = "+v)
		}
		text = appendBlock(lines, "[["+tomlKey(p)+"]]", body)
		lines = strings.Split(text, "\n")
	}
	return text, nil
}
