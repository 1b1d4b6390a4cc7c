// Package jsondoc makes the machine-readable documents every front end
// prints: one JSON document stamped with the schema name of the command
// that made it, optionally filtered through a jq expression. The CLI's
// --json and --jq and the MCP server's results share these rules, so a
// document reads the same whichever front end printed it.
package jsondoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/cli/go-gh/v2/pkg/jq"
	"github.com/itchyny/gojq"

	"github.com/agentproto/agentproto/internal/fault"
)

// Version is the version every document's schema carries today; a shape
// that changes incompatibly gets the next one.
const Version = "v1"

// Schema is the schema name of a command's document: "plan check" is
// "agentproto.plan.check/v1".
func Schema(command string) string {
	return "agentproto." + strings.Join(strings.Fields(command), ".") + "/" + Version
}

// Encode is v as one line of JSON, HTML characters kept as they are, and a
// nil slice as [] (an empty list is never null).
func Encode(v any) ([]byte, error) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() {
		v = []any{}
	}
	var buf bytes.Buffer
	if err := Write(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write prints v as one line of JSON.
func Write(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteIndent prints v as indented JSON.
func WriteIndent(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// CheckFilter refuses a jq expression that does not parse, so a typo in the
// filter is found before a command does anything.
func CheckFilter(expr string) error {
	if _, err := gojq.Parse(expr); err != nil {
		return fault.Invalidf("--jq %q: %v", expr, err)
	}
	return nil
}

// Filter writes what the jq expression makes of the JSON document doc.
func Filter(w io.Writer, doc []byte, expr string) error {
	if err := jq.Evaluate(bytes.NewReader(doc), w, expr); err != nil {
		return fault.Invalidf("--jq %q: %v", expr, err)
	}
	return nil
}

// Emit stamps doc with schema and writes it as one line, or, when expr is
// not empty, what that jq expression makes of the stamped document.
func Emit(w io.Writer, doc []byte, schema, expr string) error {
	b, err := Stamp(doc, schema)
	if err != nil {
		return err
	}
	if expr != "" {
		return Filter(w, b, expr)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// Stamp adds "schema" as the first field of a JSON object, or of every
// object in a JSON array (a list stays a list, so existing readers keep
// working). A document that already names its schema, like a ledger
// envelope, keeps its own. Other bytes are returned as they are.
func Stamp(b []byte, schema string) ([]byte, error) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '{':
		return StampObject(b, schema)
	case len(b) > 0 && b[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(b, &items); err != nil {
			return nil, err
		}
		var out bytes.Buffer
		out.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				out.WriteByte(',')
			}
			s, err := Stamp(it, schema)
			if err != nil {
				return nil, err
			}
			out.Write(s)
		}
		out.WriteByte(']')
		return out.Bytes(), nil
	}
	return b, nil
}

// StampObject is Stamp for a document that is one JSON object; other bytes
// are returned as they are.
func StampObject(b []byte, schema string) ([]byte, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return b, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	if _, ok := fields["schema"]; ok {
		return b, nil
	}
	name, _ := json.Marshal(schema)
	head := append([]byte(`{"schema":`), name...)
	if len(fields) == 0 {
		return append(head, '}'), nil
	}
	return append(append(head, ','), b[1:]...), nil
}

// With is v, which must encode as a JSON object, with one more field, key,
// last: a step's document is the record it wrote and, say, whether it was
// written now or found already there.
func With(v any, key string, value any) (json.RawMessage, error) {
	b, err := Encode(v)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("a %T is not a JSON object; %q cannot be added to it", v, key)
	}
	field, err := Encode(map[string]any{key: value})
	if err != nil {
		return nil, err
	}
	field = bytes.TrimSpace(field)
	out := append([]byte{}, b[:len(b)-1]...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, field[1:]...), nil
}
