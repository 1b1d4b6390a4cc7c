package gitstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/fault"
)

// checkStrictJSON refuses what encoding/json would accept and then change
// without a word: bytes that are not UTF-8 (they would become U+FFFD) and
// an object naming a key twice (the last one would win). The error names
// the byte offset or the key's path, never the content.
func checkStrictJSON(what string, raw []byte) error {
	if !utf8.Valid(raw) {
		return fault.Invalidf("%s is not valid UTF-8 at byte %d", what, invalidUTF8At(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := walkStrict(dec, what, "$"); err != nil {
		return err
	}
	return nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// walkStrict reads one JSON value from dec, checking every object in it
// for a key given twice.
func walkStrict(dec *json.Decoder, what, path string) error {
	tok, err := dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fault.Invalidf("%s is not valid JSON: %v", what, err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fault.Invalidf("%s is not valid JSON: %v", what, err)
			}
			key, _ := tok.(string)
			if seen[key] {
				return fault.Invalidf("%s has the key %q twice, at %s", what, key, path)
			}
			seen[key] = true
			if err := walkStrict(dec, what, path+"."+key); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := walkStrict(dec, what, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unexpected %v", d)
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return fault.Invalidf("%s is not valid JSON: %v", what, err)
	}
	return nil
}
