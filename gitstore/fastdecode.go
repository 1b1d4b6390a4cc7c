package gitstore

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// decodeIndexFields reads what the index needs from an envelope. Envelopes
// written by agentproto are canonical, so the fields sit in a known order at
// the front; reading them directly is several times faster than a full
// decode, which matters when a cold index ingests a whole history. Anything
// unexpected falls back to the full, strict decode.
func decodeIndexFields(env []byte) (*Event, error) {
	if e, ok := scanCanonicalHead(env); ok && json.Valid(env) {
		return e, nil
	}
	return decodeEnvelope(env)
}

func scanCanonicalHead(b []byte) (*Event, bool) {
	var e Event
	rest, ok := bytes.CutPrefix(b, []byte(`{"schema":"`+Schema+`","id":"`))
	if !ok {
		return nil, false
	}
	var s string
	if s, rest, ok = plainString(rest); !ok || ValidateID(s) != nil {
		return nil, false
	}
	e.ID = s
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"kind":"`)); !ok {
		return nil, false
	}
	if s, rest, ok = plainString(rest); !ok || ValidateKind(s) != nil {
		return nil, false
	}
	e.Kind = s
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"lamport":`)); !ok {
		return nil, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	n, err := strconv.ParseUint(string(rest[:i]), 10, 64)
	if err != nil {
		return nil, false
	}
	e.Lamport = n
	if rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"writer":"`)); !ok {
		return nil, false
	}
	if s, rest, ok = plainString(rest); !ok || s == "" {
		return nil, false
	}
	e.Writer = s
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"time":"`)); !ok {
		return nil, false
	}
	if s, rest, ok = plainString(rest); !ok {
		return nil, false
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return nil, false
	}
	e.Time = s
	e.Schema = Schema
	return &e, true
}

// plainString reads a JSON string body up to its closing quote, refusing
// escapes (the slow path handles those).
func plainString(b []byte) (string, []byte, bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 || bytes.IndexByte(b[:i], '\\') >= 0 {
		return "", nil, false
	}
	return string(b[:i]), b[i+1:], true
}
