package confmerge

import (
	"fmt"
	"path"
	"strings"
)

// Format reads and writes one kind of config file.
type Format interface {
	// Name is the format as an error message names it: JSON, TOML, YAML.
	Name() string
	// Parse reads a document; empty text is an empty object.
	Parse(text []byte) (any, error)
	// Render writes want, which is doc (read from orig) with d applied,
	// keeping what it can of orig's layout; whole reports that it could
	// not, and wrote the document anew, comments and layout lost.
	Render(orig []byte, doc any, d Delta, want any) (text []byte, whole bool, err error)
}

// syntaxFormat is a format whose Render edits the syntax tree of the
// text: MergeText then reads the text once, for the document and the tree.
type syntaxFormat interface {
	parseSyntax(text []byte) (doc, syntax any, err error)
	// renderSyntax is Render on syntax, which it may change.
	renderSyntax(orig []byte, syntax any, d Delta) ([]byte, error)
}

// ForFile is the format of a file by its name's extension; nil for a file
// merged as plain lines.
func ForFile(name string) Format {
	switch strings.ToLower(path.Ext(name)) {
	case ".json":
		return jsonFormat{}
	case ".toml":
		return tomlFormat{}
	case ".yaml", ".yml":
		return yamlFormat{}
	}
	return nil
}

// SnippetDelta is the change a snippet asks of base: the keys it sets or
// appends to that base does not already hold so, and the keys in remove
// that base has. The snippet and base are read in f's format.
func SnippetDelta(f Format, base []byte, snippet string, remove []Path) (Delta, error) {
	doc, err := f.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("the base is not valid %s: %v", f.Name(), err)
	}
	if _, ok := doc.(*Obj); !ok {
		return nil, fmt.Errorf("the base is not a %s object at its root: there are no keys to merge into", f.Name())
	}
	next := doc
	if strings.TrimSpace(snippet) != "" {
		s, err := f.Parse([]byte(snippet))
		if err != nil {
			return nil, fmt.Errorf("the snippet is not valid %s: %v", f.Name(), err)
		}
		if _, ok := s.(*Obj); !ok {
			return nil, fmt.Errorf("the snippet is not a %s object: it must name the keys it adds", f.Name())
		}
		next = overlay(doc, s)
	}
	var ops Delta
	for _, p := range remove {
		ops = append(ops, op(p, Remove, nil))
	}
	if len(ops) > 0 { // Apply copies the whole document
		if next, err = Apply(next, ops); err != nil {
			return nil, err
		}
	}
	return Diff(doc, next), nil
}

// overlay is base with a snippet laid over it: objects merged key by key,
// arrays given the snippet's elements they lack, anything else the
// snippet's.
func overlay(base, snippet any) any {
	switch s := snippet.(type) {
	case *Obj:
		b, ok := base.(*Obj)
		if !ok {
			return clone(s)
		}
		out := clone(b).(*Obj)
		for _, k := range s.Keys {
			bv, _ := out.Get(k)
			out.Set(k, overlay(bv, s.M[k]))
		}
		return out
	case []any:
		b, ok := base.([]any)
		if !ok {
			return clone(s)
		}
		return appendNew(clone(b).([]any), s)
	}
	return snippet
}

// Merge applies d to text and returns the new text, which is read back
// and must hold exactly what the changes make.
func Merge(f Format, text []byte, d Delta) ([]byte, error) {
	out, _, err := MergeText(f, text, d)
	return out, err
}

// MergeText is Merge, and says whether the file had to be written whole,
// its comments and layout not kept.
func MergeText(f Format, text []byte, d Delta) (out []byte, whole bool, err error) {
	sf, _ := f.(syntaxFormat)
	var doc, syntax any
	if sf != nil {
		doc, syntax, err = sf.parseSyntax(text)
	} else {
		doc, err = f.Parse(text)
	}
	if err != nil {
		return nil, false, fmt.Errorf("not valid %s: %v", f.Name(), err)
	}
	want, err := Apply(doc, d)
	if err != nil {
		return nil, false, err
	}
	if Equal(doc, want) {
		return text, false, nil
	}
	if sf != nil {
		out, err = sf.renderSyntax(text, syntax, d)
	} else {
		out, whole, err = f.Render(text, doc, d, want)
	}
	if err != nil {
		return nil, false, err
	}
	got, err := f.Parse(out)
	if err != nil {
		return nil, false, fmt.Errorf("the merged %s does not read back: %v", f.Name(), err)
	}
	if !Equal(got, want) {
		return nil, false, fmt.Errorf("the merged %s does not read back as the merge", f.Name())
	}
	return out, whole, nil
}
