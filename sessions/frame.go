package sessions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A frame is one JSON line on the daemon socket. Both sides bound what
// they read: a peer that never sends a newline must not grow the reader
// without limit.
const (
	// MaxRequest bounds a request: prompts travel in it, so it is generous.
	MaxRequest = 8 << 20
	// MaxResponse bounds an answer (session lists with their stderr tails).
	MaxResponse = 64 << 20
)

// ErrFrameTooLarge is a line longer than the bound of its side.
var ErrFrameTooLarge = errors.New("line too long")

// ErrBadRequest is a line that is not one request.
var ErrBadRequest = errors.New("bad request")

// readFrame reads one line of at most max bytes, newline excluded. A last
// line without a newline is a frame too. It never holds more than max plus
// one buffer of the reader.
func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			n-- // the newline
		}
		if len(line)+n > max {
			return nil, fmt.Errorf("%w: more than %d bytes without a newline", ErrFrameTooLarge, max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// DecodeRequest reads and parses one request (the daemon's side). Fields it does not know and
// anything after the object are errors: a request is never half understood.
func DecodeRequest(r *bufio.Reader, max int) (*Request, error) {
	line, err := readFrame(r, max)
	if err != nil {
		return nil, err
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if len(bytes.TrimSpace(line[dec.InputOffset():])) > 0 {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrBadRequest)
	}
	return &req, nil
}
