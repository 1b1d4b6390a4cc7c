package secrets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentproto/agentproto/internal/fault"
)

// Refuse returns a Refused error (exit 5) if text holds a secret, naming
// where it was and what it is, never the value.
func (s *Set) Refuse(where, text string) error {
	found := s.Find(text)
	if len(found) == 0 {
		return nil
	}
	// A value we can name says more than a shape around it.
	for _, f := range found {
		if f.known() {
			return refusal(where, f)
		}
	}
	return refusal(where, found[0])
}

func refusal(where string, f Finding) error {
	if f.known() {
		return fault.Refusedf("%s holds %s; secrets never go into the ledger", where, f)
	}
	return fault.Refusedf("%s looks like %s; credentials never go into the ledger", where, f)
}

// RefuseJSON is Refuse for a JSON document: it names the JSON path of the
// string holding a secret ($.message, $.refs[2]), so that an escaped
// value (\u0067hp_...) is found as decoded, and then looks at the text as
// written.
func (s *Set) RefuseJSON(where string, doc []byte) error {
	if v := decodeJSON(doc); v != nil {
		if err := s.refuseValue(where, "$", v); err != nil {
			return err
		}
	}
	return s.Refuse(where, string(doc))
}

func (s *Set) refuseValue(where, path string, v any) error {
	switch t := v.(type) {
	case string:
		return s.Refuse(where+" "+path, t)
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := s.Refuse(where+" "+path+" key", k); err != nil {
				return err
			}
			if err := s.refuseValue(where, path+"."+k, t[k]); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range t {
			if err := s.refuseValue(where, fmt.Sprintf("%s[%d]", path, i), e); err != nil {
				return err
			}
		}
	}
	return nil
}

// ScrubJSON returns doc with every secret in its strings and keys replaced
// by [redacted:NAME], still valid JSON; a clean doc is returned as it was.
// It is for records we make ourselves out of what an agent or a command
// printed: they are kept, cleaned, where a user's input is refused.
func (s *Set) ScrubJSON(doc []byte) []byte {
	if s.RefuseJSON("", doc) == nil {
		return doc
	}
	v := decodeJSON(doc)
	if v == nil {
		return []byte(strconvQuote(s.Scrub(string(doc))))
	}
	out, err := json.Marshal(s.scrubValue(v))
	if err == nil && len(s.Find(string(out))) == 0 {
		return out
	}
	// A secret made across fields: the text scrubbed as a whole, if it
	// stays JSON, else nothing of it.
	if raw := []byte(s.Scrub(string(doc))); json.Valid(raw) {
		return raw
	}
	return []byte(`{"redacted":"this record held a secret that could not be taken out alone"}`)
}

func decodeJSON(doc []byte) any {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

func (s *Set) scrubValue(v any) any {
	switch t := v.(type) {
	case string:
		return s.Scrub(t)
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[s.Scrub(k)] = s.scrubValue(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = s.scrubValue(e)
		}
		return t
	}
	return v
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
