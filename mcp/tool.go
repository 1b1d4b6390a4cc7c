package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/jsondoc"
	"github.com/agentproto/agentproto/internal/secrets"
)

// Result is what a tool hands back: the document the matching command
// prints with --json, stamped with that command's schema name, and a
// one-line summary for the model to read first. Out is the document's
// type: the tool's output schema is inferred from it, so what a tool says
// it returns is what the compiler lets it return.
type Result[Out any] struct {
	// Command is the CLI path of the matching command ("plan check"); the
	// schema is derived from it exactly as the CLI derives its own.
	Command string
	Doc     Out
	Summary string
	// Fail, when set, makes the call a tool error that still carries the
	// document (a plan check with errors: its findings are data).
	Fail error
	// Job, when set, is the answer instead of Doc: the work goes on past
	// the call's bound and job_wait reads its result.
	Job *app.JobDoc
}

// handler is a tool's body, called with arguments already checked.
type handler[In, Out any] func(ctx context.Context, req *sdk.CallToolRequest, in In) (*Result[Out], error)

// addTool registers a tool whose arguments are the JSON form of In and
// whose document is the JSON form of Out. The input schema is inferred
// from In and closed (additionalProperties false), then given the enums
// and patterns the handler checks (hints.go); the output schema is
// inferred from Out, with the "schema" name every document carries. The
// tool's annotations come from the table in hints.go: a tool missing
// there does not start. Before the body runs, the arguments are refused
// when they hold something credential-shaped (named by JSON path, never
// echoed) and decoded strictly: an unknown argument or a wrong type is
// exit 2 with nothing done.
func addTool[In, Out any](s *sdk.Server, name, desc string, h handler[In, Out]) {
	hint, ok := hints[name]
	if !ok {
		panic(fmt.Sprintf("tool %s has no entry in hints", name))
	}
	schema, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	refineInput(name, schema)
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	out, err := outputSchema[Out](hint.long)
	if err != nil {
		panic(fmt.Sprintf("tool %s: output: %v", name, err))
	}
	outResolved, err := out.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: output: %v", name, err))
	}
	tool := &sdk.Tool{Name: name, Title: hint.title, Description: desc, InputSchema: schema, OutputSchema: out,
		Annotations: hint.annotations()}
	s.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		raw := []byte(req.Params.Arguments)
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			raw = []byte("{}")
		}
		in, err := decodeArgs[In](raw, resolved)
		if err != nil {
			return errorResult(err, nil), nil
		}
		res, err := h(ctx, req, in)
		if err != nil {
			var wd *withDoc
			if errors.As(err, &wd) {
				return errorResult(err, wd.doc), nil
			}
			return errorResult(err, nil), nil
		}
		return toolResult(res, outResolved)
	})
}

// decodeArgs checks raw tool arguments and decodes them into In.
func decodeArgs[In any](raw []byte, resolved *jsonschema.Resolved) (In, error) {
	var in In
	// Secrets first: no later message may quote the value.
	if err := secrets.RefuseJSON("arguments", raw); err != nil {
		return in, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, argError(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return in, fault.Invalidf("arguments must be a JSON object")
	}
	if err := resolved.Validate(generic); err != nil {
		return in, fault.Invalidf("arguments: %v", err)
	}
	return in, nil
}

// argError names what was wrong with the arguments without quoting them.
func argError(err error) error {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fault.Invalidf("unknown argument %s; see the tool's input schema", f)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fault.Invalidf("arguments must be a JSON object")
	}
	if errors.As(err, &te) {
		return fault.Invalidf("argument %q must be %s, not %s", te.Field, jsonKind(te.Type), te.Value)
	}
	return fault.Invalidf("arguments are not valid JSON for this tool: %v", err)
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "an array"
	}
	return "an object"
}

// toolResult turns a tool's Result into the call's answer: the summary
// first, then the document itself as JSON text (a client that shows
// only text content still has every field), and the same document as
// structured content, checked against the tool's output schema.
func toolResult[Out any](res *Result[Out], out *jsonschema.Resolved) (*sdk.CallToolResult, error) {
	var doc []byte
	var err error
	if res.Job != nil {
		doc, err = stamped(res.Job, jsondoc.Schema("job"))
	} else {
		doc, err = stamped(res.Doc, jsondoc.Schema(res.Command))
	}
	if err != nil {
		return nil, err
	}
	if res.Fail != nil {
		return errorResult(res.Fail, doc), nil
	}
	var generic map[string]any
	if err := json.Unmarshal(doc, &generic); err != nil {
		return nil, err
	}
	if err := out.Validate(generic); err != nil {
		// A defect of ours, never the caller's: say it rather than send a
		// document that contradicts the schema the client was given.
		return nil, fmt.Errorf("the %s document does not match the tool's output schema: %v", res.Command, err)
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: res.Summary}, &sdk.TextContent{Text: string(doc)}},
		StructuredContent: json.RawMessage(doc),
	}, nil
}

// errorDoc is the structured part of a tool error: the exit code the CLI
// would end with, its class, and the one-line message.
type errorDoc struct {
	Schema   string          `json:"schema" jsonschema:"agentproto.error/v1"`
	Error    string          `json:"error" jsonschema:"what went wrong, and the next step when there is one"`
	ExitCode int             `json:"exit_code" jsonschema:"the CLI's exit code: 1 failure, 2 invalid input, 3 conflict, 4 timeout, 5 refused"`
	Class    string          `json:"class" jsonschema:"error, invalid, conflict, timeout or refused"`
	Result   json.RawMessage `json:"result,omitempty" jsonschema:"the tool's document, when it has one to show (a check's findings)"`
}

// errorResult is a tool error (isError) for err; doc, when given, is the
// document the command would still print (findings of a failed check).
func errorResult(err error, doc []byte) *sdk.CallToolResult {
	kind := fault.KindOf(err)
	msg := secrets.Scrub(oneLine(err.Error()))
	d := errorDoc{Schema: jsondoc.Schema("error"), Error: msg, ExitCode: int(kind), Class: className(kind)}
	if len(doc) > 0 {
		d.Result = doc
	}
	b, _ := json.Marshal(d)
	return &sdk.CallToolResult{
		IsError:           true,
		Content:           []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("exit %d (%s): %s", kind, d.Class, msg)}, &sdk.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
}

// maxMessage bounds the one-line message: enough for an error and its
// hint, short enough for a client's context.
const maxMessage = 1000

// oneLine folds a message onto one line, so a hint printed under the
// error's first line (the command to run next) still reaches the client.
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	out := strings.Join(parts, " ")
	if len(out) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}

func className(k fault.Kind) string {
	switch k {
	case fault.Invalid:
		return "invalid"
	case fault.Conflict:
		return "conflict"
	case fault.Timeout:
		return "timeout"
	case fault.Refused:
		return "refused"
	}
	return "error"
}

// stamped encodes v and puts "schema" first in it. A list becomes
// {"schema", "items"} (a structured result is an object), each item as the
// CLI prints it; a document naming its own schema keeps it.
func stamped(v any, schema string) ([]byte, error) {
	if v == nil {
		v = []any{}
	}
	b, err := jsondoc.Encode(v)
	if err != nil {
		return nil, err
	}
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '[' {
		return jsondoc.StampObject(b, schema)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return nil, err
	}
	for i, it := range items {
		if items[i], err = jsondoc.StampObject(it, schema); err != nil {
			return nil, err
		}
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	return json.Marshal(list{Schema: schema, Items: items})
}

// list is a list result: the schema first, as on every document.
type list struct {
	Schema string            `json:"schema"`
	Items  []json.RawMessage `json:"items"`
}
