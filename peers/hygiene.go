package peers

import "github.com/agentproto/agentproto/internal/texthygiene"

// Limits on what peers and supervisors send (see texthygiene).
const (
	MaxInput   = texthygiene.MaxInput
	MaxMessage = texthygiene.MaxMessage
	MaxText    = texthygiene.MaxText
)

// ValidateName reports why s cannot name an agent, goal or todo.
func ValidateName(what, s string) error { return texthygiene.ValidateName(what, s) }

// CheckText refuses an overlong value or one holding a secret, naming
// where it was found (never the value).
func CheckText(where, s string, max int) error { return texthygiene.CheckText(where, s, max) }

// CheckJSON applies CheckText to every string of a decoded JSON document.
func CheckJSON(v any, path string, maxFor func(path string) int) error {
	return texthygiene.CheckJSON(v, path, maxFor)
}

// DecodeStrict decodes a JSON input into v after the hygiene checks.
func DecodeStrict(b []byte, what string, v any) error { return texthygiene.DecodeStrict(b, what, v) }
