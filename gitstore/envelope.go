package gitstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/fault"
)

// Schema names the envelope format written in every event commit.
const Schema = "agentproto.event/v1"

// MaxIDLength bounds record ids: long enough for a uuid with a namespace,
// short enough to stay readable in a one-line commit summary.
const MaxIDLength = 200

// MaxDataSize bounds one event's data. Events describe work; bulky content
// belongs in attachments.
const MaxDataSize = 1 << 20

// MaxAttachmentSize bounds one file `ledger append --attach` reads:
// attachments are logs and frozen files, not build artefacts.
const MaxAttachmentSize = 16 << 20

// Event is one ledger record as stored in the envelope of its commit.
type Event struct {
	Schema  string `json:"schema"`
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Lamport uint64 `json:"lamport"`
	Writer  string `json:"writer"`
	Time    string `json:"time"`
	Goal    string `json:"goal,omitempty"`
	Agent   string `json:"agent,omitempty"`
	// Seal is the writer's HMAC over the event, for kinds declared
	// Sealed (seal.go): what tells an event this clone wrote from one
	// made by hand on its ref.
	Seal        string          `json:"seal,omitempty"`
	Attachments []Attachment    `json:"attachments,omitempty"`
	Data        json.RawMessage `json:"data"`
	// Retracted says that its writer's ref no longer holds the event; this
	// clone had read it and keeps it (keep.go). Never part of an envelope.
	Retracted bool `json:"-"`
}

// Attachment is a blob stored in the event commit's tree under Name.
type Attachment struct {
	Name   string `json:"name"`
	OID    string `json:"oid"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Draft is an event before the ledger assigns its clock, writer and time.
type Draft struct {
	Kind        string
	ID          string
	Goal        string
	Agent       string
	Data        json.RawMessage
	Attachments []AttachmentInput

	owner *Owner // set by Owner.Draft: the feature that may write Kind
}

// AttachmentInput is attachment content supplied by the caller.
type AttachmentInput struct {
	Name    string
	Content []byte
}

// plainName reports whether name is a plain file name: a letter or digit,
// then up to 127 letters, digits, '_', '.' or '-'. Written out: as a
// regexp its {0,127} compiled to 128 copies of the class, 118 KB of
// allocation in every process that recorded an attachment.
func plainName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '_' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// ValidateID reports why id cannot be a record id, or nil.
func ValidateID(id string) error {
	switch {
	case id == "":
		return fault.Invalidf("record id is empty")
	case len(id) > MaxIDLength:
		return fault.Invalidf("record id is %d bytes long; the limit is %d", len(id), MaxIDLength)
	case printableASCII(id):
		return nil // what ids almost always are: the checks below pass
	case !utf8.ValidString(id):
		return fault.Invalidf("record id %q is not valid UTF-8", id)
	}
	for i, r := range id {
		if unicode.IsControl(r) {
			return fault.Invalidf("record id %q has a control character at byte %d", id, i)
		}
		if unicode.IsSpace(r) {
			return fault.Invalidf("record id %q has white space at byte %d", id, i)
		}
		// Format characters (U+200B, U+202E, U+2066...) are invisible or
		// reorder what a reader sees: two ids that look alike would differ.
		if unicode.In(r, unicode.Cf, unicode.Co, unicode.Cs) || r == utf8.RuneError {
			return fault.Invalidf("record id %q has an invisible or bidirectional character (%U) at byte %d", id, r, i)
		}
	}
	return nil
}

// printableASCII reports whether s is made of ASCII letters, digits and
// punctuation only: no space, no control character.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// ValidateKind reports why kind is not a well-formed event kind, or nil.
func ValidateKind(kind string) error {
	if !wellFormedKind(kind) {
		return fault.Invalidf("event kind %q is malformed: want lowercase letters, digits and _ (or x.NAME for a user kind)", kind)
	}
	return nil
}

// wellFormedKind reports whether kind matches
// ^([a-z][a-z0-9_]{0,62}|x\.[a-z0-9][a-z0-9_.-]{0,62})$, checked by hand:
// every package that declares a kind checks it at start-up, and
// compiling the expression there cost every command 0.25 ms.
func wellFormedKind(kind string) bool {
	if user, ok := strings.CutPrefix(kind, "x."); ok {
		return len(user) >= 1 && len(user) <= 63 && lowerOrDigit(user[0]) &&
			allBytes(user[1:], func(c byte) bool { return lowerOrDigit(c) || c == '_' || c == '.' || c == '-' })
	}
	return len(kind) >= 1 && len(kind) <= 63 && 'a' <= kind[0] && kind[0] <= 'z' &&
		allBytes(kind[1:], func(c byte) bool { return lowerOrDigit(c) || c == '_' })
}

func lowerOrDigit(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// IsUserKind reports whether kind is open to raw appends: "note" and the
// "x." namespace. Every other kind belongs to the command that types it.
func IsUserKind(kind string) bool {
	return kind == "note" || strings.HasPrefix(kind, "x.")
}

// canonicalData parses raw JSON that must be an object and re-encodes it with
// sorted keys, no insignificant space and numbers kept as written, so that
// equal content always has equal bytes.
func canonicalData(raw []byte) (json.RawMessage, error) {
	if len(raw) > MaxDataSize {
		return nil, fault.Invalidf("data is %d bytes; the limit is %d", len(raw), MaxDataSize)
	}
	if err := checkStrictJSON("data", raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fault.Invalidf("data is not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, fault.Invalidf("data is not valid JSON: more than one value")
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fault.Invalidf("data must be a JSON object, got %s", jsonTypeName(v))
	}
	return marshalCanonical(v)
}

func marshalCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// normalize validates a draft and puts its data in canonical form.
func (d *Draft) normalize() error {
	if err := ValidateID(d.ID); err != nil {
		return err
	}
	if err := ValidateKind(d.Kind); err != nil {
		return fmt.Errorf("record %s: %w", d.ID, err)
	}
	for _, s := range []struct{ name, v string }{{"goal", d.Goal}, {"agent", d.Agent}} {
		if s.v != "" {
			if err := ValidateID(s.v); err != nil {
				return fault.Invalidf("record %s: %s: %v", d.ID, s.name, err)
			}
		}
	}
	if len(d.Data) == 0 {
		d.Data = json.RawMessage("{}")
	}
	data, err := canonicalData(d.Data)
	if err != nil {
		return fmt.Errorf("record %s: %w", d.ID, err)
	}
	d.Data = data
	seen := map[string]bool{}
	for _, a := range d.Attachments {
		if !plainName(a.Name) {
			return fault.Invalidf("record %s: attachment name %q is not a plain file name", d.ID, a.Name)
		}
		if seen[a.Name] {
			return fault.Invalidf("record %s: attachment %q given twice", d.ID, a.Name)
		}
		seen[a.Name] = true
	}
	return nil
}

// contentKey identifies what a record says, leaving out where and when it
// was written, so that a replayed append can be recognised as the same.
func contentKey(kind, goal, agent string, data []byte, atts []Attachment) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", kind, goal, agent, data)
	for _, a := range atts {
		fmt.Fprintf(h, "%s\x00%s\x00", a.Name, a.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (e *Event) contentKey() string {
	return contentKey(e.Kind, e.Goal, e.Agent, e.Data, e.Attachments)
}

// encodeEnvelope renders the event as the one-line JSON stored in its commit.
func encodeEnvelope(e *Event) ([]byte, error) {
	return marshalCanonical(e)
}

// envelopeFields are the top-level keys an envelope may have, spelled
// exactly: encoding/json matches keys case-insensitively and lets a later
// duplicate win, so without this check `"Kind"` or a second `"kind"` could
// make one envelope read as two different kinds.
var envelopeFields = map[string]bool{"schema": true, "id": true, "kind": true, "lamport": true,
	"writer": true, "time": true, "goal": true, "agent": true, "seal": true, "attachments": true, "data": true}

// checkEnvelopeKeys fails unless b is one JSON object whose keys are known
// envelope fields, each spelled exactly and given once, with nothing after it.
func checkEnvelopeKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("envelope is not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("envelope is not valid JSON: %v", err)
		}
		key, _ := t.(string)
		if !envelopeFields[key] {
			return fmt.Errorf("envelope has an unknown field %q", key)
		}
		if seen[key] {
			return fmt.Errorf("envelope has the field %q twice", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("envelope is not valid JSON: %v", err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("envelope is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("envelope is not valid JSON: more than one value")
	}
	return nil
}

// decodeEnvelope parses and checks an envelope read back from git.
func decodeEnvelope(b []byte) (*Event, error) {
	if err := checkEnvelopeKeys(b); err != nil {
		return nil, err
	}
	var e Event
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("envelope is not valid JSON: %v", err)
	}
	if e.Schema != Schema {
		return nil, fmt.Errorf("envelope schema is %q, want %q", e.Schema, Schema)
	}
	if err := ValidateID(e.ID); err != nil {
		return nil, err
	}
	if err := ValidateKind(e.Kind); err != nil {
		return nil, err
	}
	if e.Writer == "" {
		return nil, fmt.Errorf("record %s has no writer", e.ID)
	}
	if _, err := time.Parse(time.RFC3339Nano, e.Time); err != nil {
		return nil, fmt.Errorf("record %s: time %q is not RFC 3339", e.ID, e.Time)
	}
	for _, s := range []struct{ name, v string }{{"goal", e.Goal}, {"agent", e.Agent}} {
		if s.v != "" {
			if err := ValidateID(s.v); err != nil {
				return nil, fmt.Errorf("record %s: %s: %v", e.ID, s.name, err)
			}
		}
	}
	if len(e.Data) == 0 || e.Data[0] != '{' {
		return nil, fmt.Errorf("record %s: data is not a JSON object", e.ID)
	}
	return &e, nil
}
