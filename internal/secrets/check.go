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
	if f := s.Find(text); len(f) > 0 {
		return refusal(where, f[0])
	}
	return nil
}

func refusal(where string, f Finding) error {
	if f.Name != "" && f.What == "the value of $"+f.Name {
		return fault.Refusedf("%s holds %s; secrets never go into the ledger", where, f)
	}
	return fault.Refusedf("%s looks like %s; credentials never go into the ledger", where, f)
}

// RefuseJSON is Refuse for a JSON document: it names the JSON path of the
// string holding a secret ($.message, $.refs[2]), so that an escaped
// value (\u0067hp_...) is found as decoded, and then looks at the text as
// written.
func (s *Set) RefuseJSON(where string, doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
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
