package forge

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/secrets"
)

// maxCommentBody is GitHub's limit on a comment's body, in characters.
const maxCommentBody = 65536

// ReadCommentBody reads a comment from the file at path, or from stdin
// when path is "-": a UTF-8 text GitHub accepts, with the secrets we know
// redacted, since a comment is public. Errors name the --body-file flag.
func ReadCommentBody(stdin io.Reader, path string) (string, error) {
	var b []byte
	var err error
	switch path {
	case "":
		return "", fault.Invalidf("--body-file is required")
	case "-":
		b, err = readBounded(stdin, 4*maxCommentBody)
	default:
		// A FIFO or a device would block or never end: a regular file only.
		if fi, serr := os.Stat(path); serr != nil || !fi.Mode().IsRegular() {
			return "", fault.Invalidf("--body-file %s is not a regular file", path)
		}
		var fh *os.File
		if fh, err = os.Open(path); err == nil {
			defer fh.Close()
			b, err = readBounded(fh, 4*maxCommentBody)
		}
	}
	if err != nil {
		return "", fault.Invalidf("--body-file: %v", err)
	}
	if !utf8.Valid(b) {
		return "", fault.Invalidf("--body-file is not UTF-8 text")
	}
	body := secrets.Scrub(string(b))
	if n := utf8.RuneCountInString(body); n > maxCommentBody {
		return "", fault.Invalidf("--body-file holds %d characters; GitHub takes at most %d in a comment", n, maxCommentBody)
	}
	if strings.TrimSpace(body) == "" {
		return "", fault.Invalidf("--body-file is empty")
	}
	return body, nil
}

// readBounded reads r whole, refusing more than limit bytes.
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("more than %d bytes", limit)
	}
	return b, err
}
