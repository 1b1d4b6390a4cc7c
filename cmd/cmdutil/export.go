package cmdutil

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/internal/jsondoc"
)

// SchemaVersion is the version every --json shape carries today.
const SchemaVersion = jsondoc.Version

// Exporter is a command's machine-readable output: --json prints one
// document (or, for streams, one document per line) stamped with the
// command's schema name, and --jq EXPR filters each document through jq.
// Every verb goes through it, so the flags and the shape rules are the same
// everywhere; the rules themselves are jsondoc's.
type Exporter struct {
	cmd *cobra.Command
	on  *bool
}

// AddJSONFlags adds --json (bound to on) and --jq to cmd and returns the
// exporter the command writes its document with. --jq implies --json, and a
// jq expression that does not parse is refused before the command runs, so
// a typo in the filter never leaves half a step done.
func AddJSONFlags(cmd *cobra.Command, on *bool, usage string) *Exporter {
	cmd.Flags().BoolVar(on, "json", false, usage)
	addJQ(cmd, "filter the JSON output with a jq `EXPR` (implies --json)", on)
	return &Exporter{cmd: cmd, on: on}
}

// AddJQFlag gives --jq to a command that always prints one JSON document
// (the peer protocol's packets and records, whose shapes are their own
// and carry no --json flag); a filter that does not parse is refused
// before the command runs. It returns the exporter the command writes
// its document with (Document).
func AddJQFlag(cmd *cobra.Command) *Exporter {
	addJQ(cmd, "filter the JSON output with a jq `EXPR`", nil)
	return &Exporter{cmd: cmd, on: new(bool)}
}

// addJQ adds --jq, checked before the command runs; given, it sets json.
func addJQ(cmd *cobra.Command, usage string, json *bool) {
	cmd.Flags().String("jq", "", usage)
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if c.Flags().Changed("jq") {
			if err := jsondoc.CheckFilter(filter(c)); err != nil {
				return err
			}
			if json != nil {
				*json = true
			}
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

func filter(cmd *cobra.Command) string {
	expr, _ := cmd.Flags().GetString("jq")
	return expr
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
	return jsondoc.Schema(strings.Join(path, " "))
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
		_, err := fmt.Fprintf(w, "%s\n", strings.TrimSpace(string(doc)))
		return err
	}
	return jsondoc.Emit(w, doc, SchemaOf(e.cmd), filter(e.cmd))
}

// Filtering reports whether a --jq expression was given.
func (e *Exporter) Filtering() bool {
	return e != nil && filter(e.cmd) != ""
}

// ExportJSON is Write for the command cmd, as RunE has it at hand: cmd must
// have been given its flags with AddJSONFlags.
func ExportJSON(cmd *cobra.Command, w io.Writer, v any) error {
	doc, err := jsondoc.Encode(v)
	if err != nil {
		return err
	}
	return jsondoc.Emit(w, doc, SchemaOf(cmd), filter(cmd))
}

// Document prints v as WriteDocument does. A nil Exporter (options built
// by a unit test) writes it indented.
func (e *Exporter) Document(w io.Writer, v any) error {
	if e == nil {
		return jsondoc.WriteIndent(w, v)
	}
	return WriteDocument(e.cmd, w, v)
}

// WriteDocument prints v, indented, or what the command's --jq makes of it.
func WriteDocument(cmd *cobra.Command, w io.Writer, v any) error {
	expr := filter(cmd)
	if expr == "" {
		return jsondoc.WriteIndent(w, v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return jsondoc.Filter(w, b, expr)
}
