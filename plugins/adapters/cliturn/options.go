package cliturn

import (
	"strings"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// Options are the options every CLI adapter reads.
type Options struct {
	Binary string   // the CLI to run
	Extra  []string // words added to every call
	First  []string // words added to the first call only
}

// ReadOptions reads binary (default def), extra (words for every call)
// and extra_first (words for the first call only).
func ReadOptions(req sdk.StartRequest, def string) (Options, error) {
	o := Options{Binary: req.Options["binary"]}
	if o.Binary == "" {
		o.Binary = def
	}
	var err error
	if o.Extra, err = Split(req.Options["extra"]); err != nil {
		return o, sdk.Problemf("options.extra: %v", err)
	}
	if o.First, err = Split(req.Options["extra_first"]); err != nil {
		return o, sdk.Problemf("options.extra_first: %v", err)
	}
	return o, nil
}

// Refuse returns a Problem naming the first word of words that is one of
// the flags in banned (flag -> why), matching "--flag=value" and "-xVALUE"
// forms too; where says which option the words came from.
func Refuse(where string, words []string, banned map[string]string) error {
	for _, w := range words {
		for flag, why := range banned {
			if matchesFlag(w, flag) {
				return sdk.Problemf("options.%s: %s %s", where, w, why)
			}
		}
	}
	return nil
}

func matchesFlag(word, flag string) bool {
	if word == flag {
		return true
	}
	if strings.HasPrefix(flag, "--") {
		return strings.HasPrefix(word, flag+"=")
	}
	// A short flag takes its value attached: -sread-only.
	return len(flag) == 2 && flag[0] == '-' && !strings.HasPrefix(word, "--") && strings.HasPrefix(word, flag)
}

// SafeID checks an id the CLI printed before it goes back into argv: it
// must be a plain token, never something an option parser reads as a flag.
func SafeID(id string) bool {
	if id == "" || id[0] == '-' || len(id) > 200 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
