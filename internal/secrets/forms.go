package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
)

type form struct{ text, encoding string }

// forms returns the value as is and in the encodings it could be hidden in.
//
// Base64 is the subtle one: inside a longer blob the value's encoding
// depends on where it starts modulo 3 bytes, and its first and last
// characters mix in the neighbouring bytes. For each of the three
// alignments only the characters made of the value's bits alone are kept;
// they appear in any blob holding the value at that alignment, padded or
// not, standard or URL alphabet.
func forms(value string) []form {
	out := []form{{value, ""}}
	add := func(text, encoding string) {
		if text == "" {
			return
		}
		for _, f := range out {
			if f.text == text {
				return
			}
		}
		out = append(out, form{text, encoding})
	}
	for off := 0; off < 3; off++ {
		core := base64Core([]byte(value), off)
		add(core, "base64-encoded")
		add(strings.NewReplacer("+", "-", "/", "_").Replace(core), "base64url-encoded")
	}
	h := hex.EncodeToString([]byte(value))
	add(h, "hex-encoded")
	add(strings.ToUpper(h), "hex-encoded")
	add(url.QueryEscape(value), "URL-encoded")
	add(url.PathEscape(value), "URL-encoded")
	add(jsonEscaped(value, true), "JSON-escaped")
	add(jsonEscaped(value, false), "JSON-escaped")
	add(reversed(value), "reversed")
	// A token's body without the prefix that says what it is, and each
	// half of a long one (printed in two fields): still unique enough to
	// be the secret, and long enough not to occur by chance.
	for _, p := range tokenPrefixes {
		if body, ok := strings.CutPrefix(value, p); ok && len(body) >= minPart {
			add(body, "without its prefix")
		}
	}
	if len(value) >= 2*minPart {
		add(value[:len(value)/2], "in part")
		add(value[len(value)/2:], "in part")
	}
	return out
}

// minPart is the shortest part of a value looked for on its own: 16
// characters of a token's alphabet do not occur by chance.
const minPart = 16

// tokenPrefixes are the prefixes that say what a credential is.
var tokenPrefixes = []string{"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "sk-ant-", "sk-proj-", "sk-", "xoxb-", "xoxp-", "AKIA"}

func reversed(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// base64Core is the part of the encoding of value, placed off bytes into a
// blob, that does not depend on the bytes around it.
func base64Core(value []byte, off int) string {
	buf := make([]byte, off+len(value))
	copy(buf[off:], value)
	enc := base64.RawStdEncoding.EncodeToString(buf)
	start := (8*off + 5) / 6
	end := 8 * (off + len(value)) / 6
	if end <= start {
		return ""
	}
	return enc[start:end]
}

func jsonEscaped(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		return ""
	}
	q := strings.TrimSuffix(b.String(), "\n")
	return q[1 : len(q)-1]
}
