package worktree

import (
	"bytes"
	"io"
	"strings"
)

// conversion is what git does to a blob's content when it writes it to
// the working tree, when that is something this checkout does itself.
type conversion uint8

const (
	convNone conversion = iota
	// convCRLF: lone LFs become CRLF (text, eol=crlf).
	convCRLF
	// convAutoCRLF: the same, unless the content looks binary or already
	// holds a CR (text=auto, core.autocrlf=true).
	convAutoCRLF
)

// apply returns content as git writes it; content itself when unchanged.
func (c conversion) apply(content []byte) []byte {
	if c == convNone || len(content) == 0 {
		return content
	}
	s := gatherStats(content)
	if !c.converts(s) {
		return content
	}
	out := make([]byte, 0, len(content)+s.lonelf)
	for {
		i := bytes.IndexByte(content, '\n')
		if i < 0 {
			break
		}
		if i > 0 && content[i-1] == '\r' {
			out = append(out, content[:i+1]...)
		} else {
			out = append(out, content[:i]...)
			out = append(out, '\r', '\n')
		}
		content = content[i+1:]
	}
	return append(out, content...)
}

// converts says whether content with these stats changes.
func (c conversion) converts(s textStats) bool {
	if c == convNone || s.lonelf == 0 {
		return false
	}
	return c != convAutoCRLF || s.lonecr == 0 && s.crlf == 0 && !s.binary()
}

// textStats counts what git counts to tell text from binary.
type textStats struct {
	nul, lonecr, lonelf, crlf, printable, nonprintable int
	// For counting in pieces: a CR ending the last piece, and its last byte.
	pendingCR bool
	last      byte
}

func gatherStats(b []byte) textStats {
	var s textStats
	s.add(b)
	s.finish()
	return s
}

// add counts b, the next piece of the content.
func (s *textStats) add(b []byte) {
	if len(b) == 0 {
		return
	}
	i := 0
	if s.pendingCR {
		s.pendingCR = false
		if b[0] == '\n' {
			s.crlf++
			i = 1
		} else {
			s.lonecr++
		}
	}
	s.last = b[len(b)-1]
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\r':
			if i+1 == len(b) {
				s.pendingCR = true
			} else if b[i+1] == '\n' {
				s.crlf++
				i++
			} else {
				s.lonecr++
			}
		case c == '\n':
			s.lonelf++
		case c == 127:
			s.nonprintable++
		case c < 32:
			switch c {
			case '\b', '\t', '\033', '\014':
				s.printable++
			case 0:
				s.nul++
				s.nonprintable++
			default:
				s.nonprintable++
			}
		default:
			s.printable++
		}
	}
}

// finish ends the count once every piece was added.
func (s *textStats) finish() {
	if s.pendingCR {
		s.pendingCR = false
		s.lonecr++
	}
	// A trailing ^Z (old DOS end of file) is not held against the text.
	if s.last == '\032' {
		s.nonprintable--
	}
}

// crlfReader turns lone LFs of r into CRLF as they stream by.
type crlfReader struct {
	r      io.Reader
	prevCR bool
	out    []byte
	buf    []byte
}

func (c *crlfReader) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.buf == nil {
			c.buf = make([]byte, 256<<10)
		}
		n, err := c.r.Read(c.buf)
		for _, b := range c.buf[:n] {
			if b == '\n' && !c.prevCR {
				c.out = append(c.out, '\r')
			}
			c.out = append(c.out, b)
			c.prevCR = b == '\r'
		}
		if err != nil && len(c.out) == 0 {
			return 0, err
		}
		if n == 0 && err == nil {
			continue
		}
	}
	n := copy(p, c.out)
	c.out = c.out[:copy(c.out, c.out[n:])]
	return n, nil
}

func (s textStats) binary() bool {
	return s.lonecr > 0 || s.nul > 0 || s.printable>>7 < s.nonprintable
}

// eolConfig is the part of git's effective config that decides line
// endings on checkout.
type eolConfig struct {
	autocrlf int    // 0 false, 1 true, -1 input
	eol      string // core.eol: "lf", "crlf", "native" or ""
}

// crlfAction mirrors git's decision for one path.
type crlfAction int

const (
	actUndefined crlfAction = iota
	actBinary
	actText
	actTextInput
	actTextCRLF
	actAuto
	actAutoInput
	actAutoCRLF
)

// attrValue is one attribute as git check-attr prints it: "unspecified",
// "set", "unset" or a value.
func crlfFromAttr(v string) crlfAction {
	switch v {
	case "set":
		return actText
	case "unset":
		return actBinary
	case "input":
		return actTextInput
	case "auto":
		return actAuto
	}
	return actUndefined
}

// eolConversion decides, as git's convert_attrs and output_eol do, what a
// checkout does to the line endings of a path with these attributes.
func eolConversion(text, crlf, eol string, cfg eolConfig) conversion {
	action := crlfFromAttr(text)
	if action == actUndefined {
		action = crlfFromAttr(crlf)
	}
	if action != actBinary {
		switch {
		case action == actAuto && eol == "lf":
			action = actAutoInput
		case action == actAuto && eol == "crlf":
			action = actAutoCRLF
		case eol == "lf":
			action = actTextInput
		case eol == "crlf":
			action = actTextCRLF
		}
	}
	if action == actText {
		action = actTextInput
		if cfg.textEOLIsCRLF() {
			action = actTextCRLF
		}
	}
	if action == actUndefined {
		switch cfg.autocrlf {
		case 0:
			action = actBinary
		case 1:
			action = actAutoCRLF
		default:
			action = actAutoInput
		}
	}
	switch action {
	case actTextCRLF:
		return convCRLF
	case actAutoCRLF:
		return convAutoCRLF
	case actAuto:
		if cfg.textEOLIsCRLF() {
			return convAutoCRLF
		}
	}
	return convNone
}

// textEOLIsCRLF: the line ending of text files with no eol of their own.
// Native is LF on every platform this runs on.
func (c eolConfig) textEOLIsCRLF() bool {
	switch c.autocrlf {
	case 1:
		return true
	case -1:
		return false
	}
	return c.eol == "crlf"
}

// isUTF8Name says whether an encoding name is git's default one, for
// which working-tree-encoding changes nothing.
func isUTF8Name(name string) bool {
	return strings.EqualFold(name, "utf-8") || strings.EqualFold(name, "utf8")
}
