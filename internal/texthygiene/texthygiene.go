// Package texthygiene holds the checks applied to text an agent or a user
// hands in before it is recorded: names of a closed shape, bounded
// lengths, no secrets, strict JSON. The peer protocol, lessons and the
// pipeline share them; none of them owns them.
package texthygiene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/internal/secrets"
)

var namePattern = lazyre.New(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ValidateName reports why s cannot name an agent, goal, todo or tag:
// such names end up in record ids and ref names.
func ValidateName(what, s string) error {
	if !namePattern.MatchString(s) {
		return fault.Invalidf("%s %q is not valid: lowercase letters, digits, '.', '_' and '-'", what, s)
	}
	return nil
}

// Limits on what peers and supervisors send.
const (
	MaxInput   = 64 << 10 // one JSON input
	MaxMessage = 4000     // an inject message
	MaxText    = 1000     // any other string
)

// CheckText refuses an overlong value, or one holding a secret (a value
// the process knows, encoded or not, or a credential shape), naming where
// it was found (never the value).
func CheckText(where, s string, max int) error {
	if len(s) > max {
		return fault.Invalidf("%s is %d bytes; the limit is %d", where, len(s), max)
	}
	return secrets.Refuse(where, s)
}

// CheckJSON walks a decoded JSON document and applies CheckText to every
// string, reporting the JSON path of a problem ($.message, $.refs[2]).
func CheckJSON(v any, path string, maxFor func(path string) int) error {
	switch t := v.(type) {
	case string:
		return CheckText(path, t, maxFor(path))
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := CheckText(path+" key", k, MaxText); err != nil {
				return err
			}
			if err := CheckJSON(t[k], path+"."+k, maxFor); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range t {
			if err := CheckJSON(e, fmt.Sprintf("%s[%d]", path, i), maxFor); err != nil {
				return err
			}
		}
	}
	return nil
}

// DecodeStrict decodes a JSON input into v after the hygiene checks:
// size, credential shapes anywhere, then unknown fields.
func DecodeStrict(b []byte, what string, v any) error {
	if len(b) > MaxInput {
		return fault.Invalidf("%s is %d bytes; the limit is %d", what, len(b), MaxInput)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return fault.Invalidf("%s is not valid JSON: %v", what, err)
	}
	maxFor := func(p string) int {
		if p == "$.message" {
			return MaxMessage
		}
		return MaxText
	}
	if err := CheckJSON(generic, "$", maxFor); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "json: unknown field") {
			return fault.Invalidf("%s: %s", what, strings.TrimPrefix(msg, "json: "))
		}
		return fault.Invalidf("%s: %v", what, err)
	}
	return nil
}
