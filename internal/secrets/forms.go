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
	return out
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
