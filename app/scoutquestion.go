package app

import (
	"bytes"
	"io"
	"os"

	"github.com/agentproto/agentproto/internal/fault"
)

// maxQuestion bounds a scout's question: a page of text, not a corpus.
const maxQuestion = 64 << 10

// ReadScoutQuestion reads a scout's question from a file, or from stdin
// when path is -; an empty question is refused (leaving it out gives
// the default recon).
func ReadScoutQuestion(path string, stdin io.Reader) (string, error) {
	r := stdin
	if path != "-" {
		fh, err := os.Open(path)
		if err != nil {
			return "", fault.Invalidf("--question: %v", err)
		}
		defer fh.Close()
		r = fh
	}
	b, err := io.ReadAll(io.LimitReader(r, maxQuestion+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxQuestion {
		return "", fault.Invalidf("--question is over 64 KiB")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return "", fault.Invalidf("--question %s is empty (leave --question out for the default recon)", path)
	}
	return string(b), nil
}
