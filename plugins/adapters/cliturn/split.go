package cliturn

import (
	"strings"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// Split breaks a command template into words as sdk.SplitCommand does:
// the adapters and the trust check of committed options (plugins/host)
// split one way, so what is trusted is what runs.
func Split(s string) ([]string, error) { return sdk.SplitCommand(s) }

// Expand replaces {prompt}, {model} and {session} in each word, in one pass
// over the template: a value is never scanned again, so a model named
// "{prompt}" or a path holding "{model}" stays as it is, whatever the
// order of vars.
func Expand(words []string, vars map[string]string) []string {
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	r := strings.NewReplacer(pairs...)
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, r.Replace(w))
	}
	return out
}
