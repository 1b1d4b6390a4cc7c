package confmerge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlFormat edits the YAML node tree, so the file keeps its key order,
// its comments and the style of what the change does not touch; the
// encoder sets the indentation to the file's own.
type yamlFormat struct{}

func (yamlFormat) Name() string { return "YAML" }

func (y yamlFormat) Parse(b []byte) (any, error) {
	doc, _, err := y.parseSyntax(b)
	return doc, err
}

// parseSyntax reads b into its node tree and the document the tree holds.
func (yamlFormat) parseSyntax(b []byte) (doc, syntax any, err error) {
	n, err := readYAML(b)
	if err != nil {
		return nil, nil, err
	}
	budget := maxYAMLNodes
	doc, err = fromNode(n, &budget)
	return doc, n, err
}

// readYAML reads the one document of b; empty text, or comments only, is
// an empty mapping.
func readYAML(b []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}, nil
	}
	if err != nil {
		return nil, err
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("the file holds more than one document; only a single-document file is merged")
	}
	if len(doc.Content) == 0 {
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	return &doc, nil
}

// maxYAMLNodes bounds the nodes read, aliases expanded: a few aliases
// can otherwise stand for billions of them.
const maxYAMLNodes = 1 << 20

func fromNode(n *yaml.Node, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("line %d: the document expands to more than %d nodes", n.Line, maxYAMLNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		return fromNode(n.Content[0], budget)
	case yaml.AliasNode:
		return fromNode(n.Alias, budget)
	case yaml.MappingNode:
		o := NewObj()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				return nil, fmt.Errorf("line %d: only plain keys are merged (no merge keys or complex keys)", k.Line)
			}
			if _, dup := o.Get(k.Value); dup {
				return nil, fmt.Errorf("line %d: key %q appears twice in one mapping", k.Line, k.Value)
			}
			v, err := fromNode(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			o.Set(k.Value, v)
		}
		return o, nil
	case yaml.SequenceNode:
		a := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromNode(c, budget)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, nil
	}
	if n.Tag == "!!str" {
		// What Decode gives for a string, without a decoder per scalar.
		return n.Value, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, fmt.Errorf("line %d: %v", n.Line, err)
	}
	return v, nil
}

func toNode(v any) (*yaml.Node, error) {
	switch t := v.(type) {
	case *Obj:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range t.Keys {
			c, err := toNode(t.M[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, c)
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, x := range t {
			c, err := toNode(x)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	}
	if n := scalarNode(v); n != nil {
		return n, nil
	}
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return n, nil
}

// scalarNode is the node Node.Encode makes of v, for the scalars whose
// text needs no quoting decision; nil for the others. Node.Encode writes
// and parses back a document for each value: at 50,000 appended elements
// it was a quarter of the merge.
func scalarNode(v any) *yaml.Node {
	switch t := v.(type) {
	case string:
		if plainWord(t) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}
		}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(t)}
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(t, 10)}
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return nil
}

// plainWord reports whether s reads back as the same string written
// plain: a letter, then letters, digits and -_./, and no word YAML 1.1 or
// 1.2 reads as a boolean or null (the encoder quotes those).
func plainWord(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !('0' <= c && c <= '9') && c != '-' && c != '_' && c != '.' && c != '/' {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func (y yamlFormat) Render(orig []byte, _ any, d Delta, _ any) ([]byte, bool, error) {
	doc, err := readYAML(orig)
	if err != nil {
		return nil, false, err
	}
	out, err := y.renderSyntax(orig, doc, d)
	return out, false, err
}

// renderSyntax applies d to the node tree read from orig, in place, and
// writes it.
func (yamlFormat) renderSyntax(orig []byte, syntax any, d Delta) ([]byte, error) {
	doc := syntax.(*yaml.Node)
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the document is not a mapping at its root")
	}
	for _, o := range d {
		if err := yamlApply(root, o.Path, o); err != nil {
			return nil, err
		}
	}
	spellFlowNulls(doc, false)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(yamlIndent(orig))
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// yamlApply makes o at the key path p under the mapping m.
func yamlApply(m *yaml.Node, p Path, o Op) error {
	i := pairIndex(m, p[0])
	if i >= 0 && m.Content[i+1].Kind == yaml.AliasNode && o.Kind != Remove {
		// A change beneath an alias changes this key only, not the
		// anchor it points to: the alias becomes a copy.
		m.Content[i+1] = copyNode(m.Content[i+1].Alias)
		m.Content[i+1].Anchor = ""
	}
	if len(p) > 1 {
		if i < 0 {
			if o.Kind == Remove {
				return nil
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p[0]}, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
			i = len(m.Content) - 2
		}
		child := m.Content[i+1]
		if child.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a mapping", o.Path[:len(o.Path)-len(p)+1])
		}
		return yamlApply(child, p[1:], o)
	}
	switch o.Kind {
	case Remove:
		if i >= 0 {
			// A comment above the key (a file's header, often) stays
			// above what follows it.
			if c := m.Content[i].HeadComment; c != "" && i+2 < len(m.Content) {
				next := m.Content[i+2]
				next.HeadComment = strings.TrimSpace(c + "\n" + next.HeadComment)
			}
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
		}
		return nil
	case Append:
		if i < 0 {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p[0]}, &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"})
			i = len(m.Content) - 2
		}
		seq := m.Content[i+1]
		if seq.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s is not a sequence", o.Path)
		}
		budget := maxYAMLNodes
		have, err := fromNode(seq, &budget)
		if err != nil {
			return err
		}
		seen := canonSet(have.([]any))
		for _, e := range o.Value.([]any) {
			k := keyOf(e)
			if seen[k] {
				continue
			}
			n, err := toNode(e)
			if err != nil {
				return err
			}
			seq.Content = append(seq.Content, n)
			seen[k] = true
		}
		return nil
	}
	if src, ok := o.Value.(*Obj); ok && i >= 0 && m.Content[i+1].Kind == yaml.MappingNode {
		for _, k := range src.Keys {
			if err := yamlApply(m.Content[i+1], Path{k}, op(o.Path.child(k), Set, src.M[k])); err != nil {
				return err
			}
		}
		return nil
	}
	n, err := toNode(o.Value)
	if err != nil {
		return err
	}
	if i < 0 {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p[0]}, n)
		return nil
	}
	n.LineComment, n.HeadComment, n.FootComment = m.Content[i+1].LineComment, m.Content[i+1].HeadComment, m.Content[i+1].FootComment
	m.Content[i+1] = n
	return nil
}

// spellFlowNulls writes "null" for an empty null value inside a flow
// collection: the encoder would write it as an empty quoted string, which
// reads back as a string, not a null. A key is left as it is: an empty
// null key ({?: v}) is read as the key "", which the encoder's "" keeps,
// and "null" would read back as the key "null".
func spellFlowNulls(n *yaml.Node, inFlow bool) {
	inFlow = inFlow || n.Style&yaml.FlowStyle != 0
	if inFlow && n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" {
		n.Value = "null"
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue
		}
		spellFlowNulls(c, inFlow)
	}
}

func pairIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// yamlIndent is the indentation of the first indented line, 2 when none
// is.
func yamlIndent(b []byte) int {
	for _, l := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimLeft(l, " ")
		if n := len(l) - len(t); n > 0 && len(t) > 0 && t[0] != '#' && t[0] != '-' {
			return n
		}
	}
	return 2
}

func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = copyNode(x)
	}
	return &c
}
