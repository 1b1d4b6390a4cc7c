package config

import (
	"bytes"
	"errors"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
)

// typeErrPattern reads the line and key out of the decoder's type errors,
// which are plain strings rather than ParseErrors.
var typeErrPattern = lazyre.New(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)

type valueError struct {
	key toml.Key
	msg string
}

func (e *valueError) Error() string { return e.key.String() + ": " + e.msg }

// BadValue is a validation error about the value at key.
func BadValue(msg string, key ...string) error {
	return &valueError{key: toml.Key(key), msg: msg}
}

// DecodeStrict decodes TOML into v and refuses unknown keys; every error is
// Invalid and names the file, line and key.
func DecodeStrict(text []byte, name string, v any) error {
	md, err := toml.NewDecoder(bytes.NewReader(text)).Decode(v)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			if strings.HasSuffix(perr.Message, durationHint) && perr.LastKey != "" {
				return fault.Invalidf("%s:%d: %s: %s", name, perr.Position.Line, perr.LastKey, perr.Message)
			}
			return fault.Invalidf("%s:%d: %s", name, perr.Position.Line, perr.Message)
		}
		if m := typeErrPattern.FindStringSubmatch(err.Error()); m != nil {
			return fault.Invalidf("%s:%s: %s: %s", name, m[1], m[2], m[3])
		}
		return fault.Invalidf("%s: %v", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return fault.Invalidf("%s:%d: unknown key %q", name, lineOf(text, und[0]), und[0].String())
	}
	return nil
}

// ValueError places an error made by BadValue at its line in text.
func ValueError(text []byte, name string, err error) error {
	var ve *valueError
	if errors.As(err, &ve) {
		return fault.Invalidf("%s:%d: %s: %s", name, lineOf(text, ve.key), ve.key.String(), ve.msg)
	}
	return err
}

// lineOf finds the line where key is set, reading the TOML text the simple
// way: table headers and "key =" lines. It returns 0 when it cannot tell.
func lineOf(text []byte, key toml.Key) int {
	if len(key) == 0 {
		return 0
	}
	table := ""
	want := key.String()
	for i, raw := range strings.Split(string(text), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "[") {
			name := strings.Trim(line, "[] ")
			if j := strings.Index(name, "]"); j >= 0 {
				name = name[:j]
			}
			table = strings.TrimSpace(name)
			if table == want {
				return i + 1
			}
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"`)
		full := k
		if table != "" {
			full = table + "." + k
		}
		if full == want || strings.HasPrefix(want, full+".") {
			return i + 1
		}
	}
	return 0
}
