package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
)

// Limits on what peers and supervisors send.
const (
	MaxInput   = 64 << 10 // one JSON input
	MaxMessage = 4000     // an inject message
	MaxText    = 1000     // any other string
)

// credentialPatterns are shapes of secrets that must never reach the
// ledger, which is shared with every clone.
var credentialPatterns = []struct {
	name string
	re   *lazyre.Regexp
}{
	{"a GitHub token", lazyre.New(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)},
	{"an AWS access key", lazyre.New(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"an AWS secret key", lazyre.New(`(?i)aws.{0,20}secret.{0,20}[A-Za-z0-9/+=]{40}`)},
	{"an OpenAI-style API key", lazyre.New(`\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}`)},
	{"a Slack token", lazyre.New(`\bxox[abprs]-[A-Za-z0-9-]{10,}`)},
	{"a private key block", lazyre.New(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	{"a bearer token", lazyre.New(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}`)},
	{"a JWT", lazyre.New(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
}

// CheckText refuses a credential-shaped or overlong value, naming where it
// was found (never the value).
func CheckText(where, s string, max int) error {
	if len(s) > max {
		return fault.Invalidf("%s is %d bytes; the limit is %d", where, len(s), max)
	}
	for _, p := range credentialPatterns {
		if p.re.MatchString(s) {
			return fault.Refusedf("%s looks like %s; credentials never go into the ledger", where, p.name)
		}
	}
	return nil
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
