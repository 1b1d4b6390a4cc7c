package cmdutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/cli/go-gh/v2/pkg/jq"
	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/internal/fault"
)

// SchemaVersion is the version every --json shape carries today; a shape
// that changes incompatibly gets the next one.
const SchemaVersion = "v1"

// Exporter is a command's machine-readable output: --json prints one
// document (or, for streams, one document per line) stamped with the
// command's schema name, and --jq EXPR filters each document through jq.
// Every verb goes through it, so the flags and the shape rules are the same
// everywhere.
type Exporter struct {
	cmd *cobra.Command
	on  *bool
}

// AddJSONFlags adds --json (bound to on) and --jq to cmd and returns the
// exporter the command writes its document with. --jq implies --json, and a
// jq expression that does not parse is refused before the command runs, so
// a typo in the filter never leaves half a step done.
func AddJSONFlags(cmd *cobra.Command, on *bool, usage string) *Exporter {
	e := &Exporter{cmd: cmd, on: on}
	cmd.Flags().BoolVar(on, "json", false, usage)
	cmd.Flags().String("jq", "", "filter the JSON output with a jq `EXPR` (implies --json)")
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if c.Flags().Changed("jq") {
			expr, _ := c.Flags().GetString("jq")
			if _, err := gojq.Parse(expr); err != nil {
				return fault.Invalidf("--jq %q: %v", expr, err)
			}
			*on = true
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
	return e
}

// Enabled reports whether the command prints JSON.
func (e *Exporter) Enabled() bool { return *e.on }

// Schema is the name and version of the command's JSON shape, taken from
// its path: `plan check` prints "agentproto.plan.check/v1".
func (e *Exporter) Schema() string { return SchemaOf(e.cmd) }

// SchemaOf is the schema name of cmd's --json shape.
func SchemaOf(cmd *cobra.Command) string {
	path := strings.Fields(cmd.CommandPath())
	if len(path) > 0 {
		path = path[1:]
	}
	return "agentproto." + strings.Join(path, ".") + "/" + SchemaVersion
}

// Write prints v as one line of JSON stamped with the schema, or what the
// --jq expression makes of it. Streams call it once per document. A nil
// Exporter (options built by a unit test) writes plain JSON.
func (e *Exporter) Write(w io.Writer, v any) error {
	if e == nil {
		return WriteJSON(w, v)
	}
	return ExportJSON(e.cmd, w, v)
}

// WriteRaw is Write for a document already encoded as JSON.
func (e *Exporter) WriteRaw(w io.Writer, doc []byte) error {
	if e == nil {
		_, err := fmt.Fprintf(w, "%s\n", bytes.TrimSpace(doc))
		return err
	}
	return emit(e.cmd, w, doc)
}

// Filtering reports whether a --jq expression was given.
func (e *Exporter) Filtering() bool {
	if e == nil {
		return false
	}
	expr, _ := e.cmd.Flags().GetString("jq")
	return expr != ""
}

// ExportJSON is Write for the command cmd, as RunE has it at hand: cmd must
// have been given its flags with AddJSONFlags.
func ExportJSON(cmd *cobra.Command, w io.Writer, v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() {
		v = []any{} // an empty list is [], never null
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return emit(cmd, w, buf.Bytes())
}

func emit(cmd *cobra.Command, w io.Writer, doc []byte) error {
	b, err := stamp(doc, SchemaOf(cmd))
	if err != nil {
		return err
	}
	if expr, _ := cmd.Flags().GetString("jq"); expr != "" {
		if err := jq.Evaluate(bytes.NewReader(b), w, expr); err != nil {
			return fault.Invalidf("--jq %q: %v", expr, err)
		}
		return nil
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// stamp adds "schema" as the first field of a JSON object, or of every
// object in a JSON array (a list stays a list, so existing readers keep
// working). A document that already names its schema, like a ledger
// envelope, keeps its own. Other bytes are returned as they are.
func stamp(b []byte, schema string) ([]byte, error) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '{':
		return stampObject(b, schema)
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
			s, err := stamp(it, schema)
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

func stampObject(b []byte, schema string) ([]byte, error) {
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

// AddJQFlag gives --jq to a command that always prints one JSON document
// (the peer protocol's packets and records, whose shapes are their own
// and carry no --json flag); a filter that does not parse is refused
// before the command runs.
func AddJQFlag(cmd *cobra.Command) {
	cmd.Flags().String("jq", "", "filter the JSON output with a jq `EXPR`")
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if expr, _ := c.Flags().GetString("jq"); expr != "" {
			if _, err := gojq.Parse(expr); err != nil {
				return fault.Invalidf("--jq %q: %v", expr, err)
			}
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// WriteDocument prints v, indented, or what the command's --jq makes of it.
func WriteDocument(cmd *cobra.Command, w io.Writer, v any) error {
	expr, _ := cmd.Flags().GetString("jq")
	if expr == "" {
		return WriteJSONIndent(w, v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := jq.Evaluate(bytes.NewReader(b), w, expr); err != nil {
		return fault.Invalidf("--jq %q: %v", expr, err)
	}
	return nil
}
