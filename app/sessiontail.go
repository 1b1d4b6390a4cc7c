package app

import (
	"bytes"
	"context"
	"fmt"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// OutputLine is one line of a session's output, as `sessions output
// --json` prints it.
type OutputLine struct {
	Session string `json:"session"`
	Line    string `json:"line"`
}

// Bounds of a session's tail for a reader with a small context (a
// model): the last 40 to 60 lines say how a turn ended, never megabytes
// of it.
const (
	DefaultTailLines = 60
	MaxTailLines     = 2000
	maxLineBytes     = 4 << 10
)

// SessionTail is the last lines of session id's output (0: the last
// DefaultTailLines), terminal escapes stripped when clean; a line past
// 4 KiB keeps its start and says how much was cut.
func (e *Env) SessionTail(ctx context.Context, id string, last int, clean bool) ([]OutputLine, error) {
	if err := sessions.ValidateID(id); err != nil {
		return nil, err
	}
	switch {
	case last < 0 || last > MaxTailLines:
		return nil, fault.Invalidf("last must be between 1 and %d (0: the last %d)", MaxTailLines, DefaultTailLines)
	case last == 0:
		last = DefaultTailLines
	}
	rec, b, err := e.SessionOutput(ctx, id)
	if err != nil {
		return nil, err
	}
	if clean {
		b = StripEscapes(b)
	}
	lines := []OutputLine{}
	for _, p := range tailLines(b, last) {
		p = bytes.TrimSuffix(bytes.TrimSuffix(p, []byte("\n")), []byte("\r"))
		lines = append(lines, OutputLine{Session: rec.ID, Line: cutLine(p)})
	}
	return lines, nil
}

// cutLine keeps the start of a line past maxLineBytes, and says so.
func cutLine(p []byte) string {
	if len(p) <= maxLineBytes {
		return string(p)
	}
	return fmt.Sprintf("%s […cut %d bytes]", bytes.ToValidUTF8(p[:maxLineBytes], nil), len(p)-maxLineBytes)
}

// tailLines is the last n lines of b (all of them when n is 0), each
// with its newline; an unfinished last line counts as one.
func tailLines(b []byte, n int) [][]byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	if k := len(lines); k > 0 && len(lines[k-1]) == 0 {
		lines = lines[:k-1]
	}
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// LastLines is the last n lines of b, all of it when n is 0.
func LastLines(b []byte, n int) []byte {
	if n <= 0 {
		return b
	}
	return bytes.Join(tailLines(b, n), nil)
}

// OutputLines turns a session's output bytes, as they come, into one
// OutputLine each: a line still being written waits for its newline, or
// for Flush when the output ends.
type OutputLines struct {
	Session string
	Emit    func(OutputLine) error
	partial []byte
}

// Add takes the next bytes of the output.
func (s *OutputLines) Add(p []byte) {
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			return
		}
		s.Emit(OutputLine{Session: s.Session, Line: string(bytes.TrimSuffix(s.partial[:i], []byte("\r")))})
		s.partial = s.partial[i+1:]
	}
}

// Flush emits the unfinished last line, if any.
func (s *OutputLines) Flush() {
	if len(s.partial) > 0 {
		s.Emit(OutputLine{Session: s.Session, Line: string(s.partial)})
		s.partial = nil
	}
}
