package sessionscmd

import "bytes"

// lineStream turns a session's output bytes into one JSON document per
// line for `sessions output --json`; a line still being written waits for
// its newline, or for flush when the output ends.
type lineStream struct {
	session string
	write   func(v any) error
	partial []byte
}

type outputLine struct {
	Session string `json:"session"`
	Line    string `json:"line"`
}

func (s *lineStream) add(p []byte) {
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			return
		}
		s.write(outputLine{Session: s.session, Line: string(bytes.TrimSuffix(s.partial[:i], []byte("\r")))})
		s.partial = s.partial[i+1:]
	}
}

func (s *lineStream) flush() {
	if len(s.partial) > 0 {
		s.write(outputLine{Session: s.session, Line: string(s.partial)})
		s.partial = nil
	}
}
