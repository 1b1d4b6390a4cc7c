package peercmd

import (
	"encoding/json"
	"io"

	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// writeNamed prints v as a document whose first field names its schema,
// as every JSON document of the CLI does. The protocol's documents keep
// their own names (supervisor_proposal_v0, ...), and the schema goes only
// into what is printed: the records in the ledger stay byte for byte what
// earlier versions wrote, so a replay of one is still a no-op.
func writeNamed(w io.Writer, x *cmdutil.Exporter, schema string, v any) error {
	doc, err := named(schema, v)
	if err != nil {
		return err
	}
	return x.Document(w, doc)
}

// named returns v encoded as a JSON object with schema as its first
// field. v must encode as an object.
func named(schema string, v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	head, _ := json.Marshal(map[string]string{"schema": schema})
	if string(b) == "{}" {
		return head, nil
	}
	return append(head[:len(head)-1:len(head)-1], append([]byte{','}, b[1:]...)...), nil
}
