package gitstore

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// decodeFast decodes an envelope. Envelopes written by agentproto are
// canonical, so their fields sit in a known order with no space; reading
// them directly is several times faster than a full decode, which matters
// when a cold index ingests a whole history and when every read decodes.
// Anything else (escapes, attachments, other order, space) takes the full,
// strict decode. Both must agree on every input they accept: FuzzEnvelope
// holds them to it.
func decodeFast(env []byte) (*Event, error) {
	if e, ok := scanCanonical(env); ok {
		return e, nil
	}
	return decodeEnvelope(env)
}

// scanCanonical reads a canonical envelope without attachments, or reports
// ok=false for the full decoder to judge.
func scanCanonical(b []byte) (*Event, bool) {
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
	if i > 1 && rest[0] == '0' { // JSON has no leading zeros
		return nil, false
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
	for _, f := range []struct {
		prefix string
		dst    *string
		id     bool // checked as an id, as the full decoder does
	}{{`,"goal":"`, &e.Goal, true}, {`,"agent":"`, &e.Agent, true}, {`,"seal":"`, &e.Seal, false}} {
		if r, ok := bytes.CutPrefix(rest, []byte(f.prefix)); ok {
			if s, rest, ok = plainString(r); !ok || (f.id && ValidateID(s) != nil) {
				return nil, false
			}
			*f.dst = s
		}
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"data":{`)); !ok {
		return nil, false
	}
	// The data object must be the last member: one valid JSON value that
	// ends one byte before the envelope does.
	data := b[len(b)-len(rest)-1 : len(b)-1]
	if len(rest) < 2 || b[len(b)-1] != '}' || data[len(data)-1] != '}' || !json.Valid(data) {
		return nil, false
	}
	e.Data = data
	e.Schema = Schema
	return &e, true
}

// plainString reads a JSON string body up to its closing quote, refusing
// escapes, control characters and invalid UTF-8 (the full decoder judges
// those: it would unescape, reject or replace them).
func plainString(b []byte) (string, []byte, bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 || bytes.IndexByte(b[:i], '\\') >= 0 || !utf8.Valid(b[:i]) {
		return "", nil, false
	}
	for _, c := range b[:i] {
		if c < 0x20 {
			return "", nil, false
		}
	}
	return string(b[:i]), b[i+1:], true
}

// splitIndexed reads an envelope the index holds. Every such envelope was
// accepted by decodeFast when it was ingested, so the canonical layout only
// needs splitting, not checking again: this keeps a warm `ledger log` at
// the cost of reading bytes. Anything else is decoded in full.
//
// The data object is last when the envelope ends in "}}": after data an
// accepted envelope could only still hold goal, agent, seal (strings) or
// attachments (an array), since every other field came before it and none
// may repeat. FuzzEnvelope holds this to the full decoder.
func splitIndexed(b []byte, intern map[string]string) (*Event, error) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"schema":"`+Schema+`","id":"`))
	if !ok || len(b) < 2 || b[len(b)-2] != '}' || b[len(b)-1] != '}' {
		return decodeFast(b)
	}
	var e Event
	var id, kind, writer, stamp []byte
	if id, rest, ok = rawString(rest); !ok {
		return decodeFast(b)
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"kind":"`)); !ok {
		return decodeFast(b)
	}
	if kind, rest, ok = rawString(rest); !ok {
		return decodeFast(b)
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"lamport":`)); !ok {
		return decodeFast(b)
	}
	var n uint64
	i := 0
	for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9' && i < 20; i++ {
		n = n*10 + uint64(rest[i]-'0')
	}
	if i == 0 || i >= 20 {
		return decodeFast(b)
	}
	if rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"writer":"`)); !ok {
		return decodeFast(b)
	}
	if writer, rest, ok = rawString(rest); !ok {
		return decodeFast(b)
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"time":"`)); !ok {
		return decodeFast(b)
	}
	if stamp, rest, ok = rawString(rest); !ok {
		return decodeFast(b)
	}
	for _, f := range []struct {
		prefix string
		dst    *string
	}{{`,"goal":"`, &e.Goal}, {`,"agent":"`, &e.Agent}, {`,"seal":"`, &e.Seal}} {
		if r, ok := bytes.CutPrefix(rest, []byte(f.prefix)); ok {
			var s []byte
			if s, rest, ok = rawString(r); !ok {
				return decodeFast(b)
			}
			*f.dst = string(s)
		}
	}
	if r, ok := bytes.CutPrefix(rest, []byte(`,"attachments":[`)); ok {
		if rest, ok = splitAttachments(r, &e); !ok {
			return decodeFast(b)
		}
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"data":{`)); !ok {
		return decodeFast(b)
	}
	e.Schema, e.ID, e.Lamport, e.Time = Schema, string(id), n, string(stamp)
	e.Kind, e.Writer = interned(intern, kind), interned(intern, writer)
	e.Data = b[len(b)-len(rest)-1 : len(b)-1]
	return &e, nil
}

// splitAttachments reads the attachments array of an accepted envelope,
// b starting just after its "[", and returns what follows it, which must
// be the data object. The array is taken to end at the first `],"data":{`:
// if that is not its real end, the slice is not one JSON value and
// Unmarshal refuses it, and the full decoder judges. Verify events carry
// their gate log, so without this every one of them took the full decoder.
func splitAttachments(b []byte, e *Event) ([]byte, bool) {
	end := bytes.Index(b, []byte(`],"data":{`))
	if end < 0 {
		return nil, false
	}
	// The "[" is the byte before b in the envelope.
	arr := b[:end+1]
	if err := json.Unmarshal(append([]byte{'['}, arr...), &e.Attachments); err != nil {
		return nil, false
	}
	return b[end+1:], true
}

// rawString is plainString without the checks an accepted envelope passed.
// Invalid UTF-8 still goes to the full decoder, which reads it as U+FFFD.
func rawString(b []byte) ([]byte, []byte, bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 || bytes.IndexByte(b[:i], '\\') >= 0 || !utf8.Valid(b[:i]) {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// interned returns one string per distinct kind or writer: a ledger has
// few of each, read thousands of times.
func interned(m map[string]string, b []byte) string {
	if s, ok := m[string(b)]; ok {
		return s
	}
	s := string(b)
	m[s] = s
	return s
}
