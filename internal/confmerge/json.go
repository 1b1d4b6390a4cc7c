package confmerge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonFormat reads JSON into ordered objects and writes it back in the
// same key order with the indentation the file had (none for a file on
// one line), as JSON.stringify and npm write it.
type jsonFormat struct{}

func (jsonFormat) Name() string { return "JSON" }

func (jsonFormat) Parse(b []byte) (any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return NewObj(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := readJSON(dec)
	if err != nil {
		return nil, jsonError(b, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the top-level value at byte %d", dec.InputOffset())
	}
	return v, nil
}

func jsonError(b []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	off := dec.InputOffset()
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("unexpected end of JSON")
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	return fmt.Errorf("line %d: %v", line, err)
}

func readJSON(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := t.(type) {
	case json.Delim:
		switch d {
		case '{':
			o := NewObj()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				if _, dup := o.Get(k); dup {
					return nil, fmt.Errorf("key %q appears twice in one object", k)
				}
				v, err := readJSON(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := readJSON(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", d)
	}
	return t, nil
}

func (f jsonFormat) Render(orig []byte, _ any, _ Delta, want any) ([]byte, bool, error) {
	indent := jsonIndent(orig)
	var buf bytes.Buffer
	if err := writeJSON(&buf, want, indent, 0); err != nil {
		return nil, false, err
	}
	if len(orig) == 0 || bytes.HasSuffix(orig, []byte("\n")) {
		buf.WriteByte('\n')
	}
	return buf.Bytes(), false, nil
}

// jsonIndent is the indentation of the first indented line: two spaces
// for a new file, none for a file written on one line.
func jsonIndent(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return "  "
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) == 1 {
		return ""
	}
	for _, l := range lines[1:] {
		if ws := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]; len(ws) > 0 && len(ws) < len(l) {
			return string(ws)
		}
	}
	return "  "
}

func writeJSON(buf *bytes.Buffer, v any, indent string, depth int) error {
	nl := func(d int) {
		if indent != "" {
			buf.WriteByte('\n')
			for range d {
				buf.WriteString(indent)
			}
		}
	}
	colon := ": "
	if indent == "" {
		colon = ":"
	}
	switch t := v.(type) {
	case *Obj:
		if len(t.Keys) == 0 {
			buf.WriteString("{}")
			return nil
		}
		buf.WriteByte('{')
		for i, k := range t.Keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			writeString(buf, k)
			buf.WriteString(colon)
			if err := writeJSON(buf, t.M[k], indent, depth+1); err != nil {
				return err
			}
		}
		nl(depth)
		buf.WriteByte('}')
	case []any:
		if len(t) == 0 {
			buf.WriteString("[]")
			return nil
		}
		buf.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			if err := writeJSON(buf, x, indent, depth+1); err != nil {
				return err
			}
		}
		nl(depth)
		buf.WriteByte(']')
	case string:
		writeString(buf, t)
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("%v cannot be written as JSON: %v", t, err)
		}
		buf.Write(b)
	}
	return nil
}

// writeString quotes s as JSON without escaping <, > and &.
func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	buf.Truncate(buf.Len() - 1) // the newline Encode adds
}
