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
func checkStrictJSON(raw []byte) error {
	if !utf8.Valid(raw) {
		return fault.Invalidf("not valid UTF-8 at byte %d", invalidUTF8At(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := walkStrict(dec, "$"); err != nil {
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
func walkStrict(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fault.Invalidf("not valid JSON: %v", err)
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
				return fault.Invalidf("not valid JSON: %v", err)
			}
			key, _ := tok.(string)
			if seen[key] {
				return fault.Invalidf("key %q is given twice in %s", key, path)
			}
			seen[key] = true
			if err := walkStrict(dec, path+"."+key); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := walkStrict(dec, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unexpected %v", d)
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return fault.Invalidf("not valid JSON: %v", err)
	}
	return nil
}
