package secrets

import (
	"sort"
	"strings"
)

// minWrappedLines is the fewest lines taken as one wrapped base64 block
// (base64(1) wraps at 76 characters, PEM at 64).
const minWrappedLines = 2

// block is a run of lines that are all base64, joined without their line
// breaks; seg[i] says where the i-th line starts in joined and in the text.
type block struct {
	joined string
	seg    []segment
}

type segment struct{ joined, text int }

// pos maps an offset of joined back to the text.
func (b *block) pos(i int) int {
	k := sort.Search(len(b.seg), func(k int) bool { return b.seg[k].joined > i }) - 1
	return b.seg[k].text + i - b.seg[k].joined
}

// wrappedBlocks returns the base64 blocks of text spread over lines, where
// an encoded secret can straddle a line break.
func wrappedBlocks(text string) []block {
	var out []block
	var joined strings.Builder
	var seg []segment
	flush := func() {
		if len(seg) >= minWrappedLines {
			out = append(out, block{joined: joined.String(), seg: seg})
		}
		joined.Reset()
		seg = nil
	}
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		line := strings.TrimSuffix(text[off:end], "\r")
		if isBase64Line(line) {
			seg = append(seg, segment{joined: joined.Len(), text: off})
			joined.WriteString(line)
		} else {
			flush()
		}
		off = end + 1
	}
	flush()
	return out
}

func isBase64Line(line string) bool {
	if len(line) < 4 {
		return false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// findWrapped appends what the base64 blocks of text hide across their
// line breaks, placed in text.
func (s *Set) findWrapped(text string, out []Finding) []Finding {
	for _, b := range wrappedBlocks(text) {
		for _, n := range s.needles {
			if !strings.HasPrefix(n.encoding, "base64") {
				continue
			}
			for at := 0; ; {
				i := strings.Index(b.joined[at:], n.text)
				if i < 0 {
					break
				}
				start := at + i
				at = start + 1
				first, last := b.pos(start), b.pos(start+len(n.text)-1)
				if last-first == len(n.text)-1 {
					continue // on one line: found as written
				}
				out = append(out, Finding{Name: n.name, What: "the value of $" + n.name, Encoding: n.encoding + ", wrapped",
					Start: first, End: last + 1})
			}
		}
		if sh, ok := shapeIn(decodeBase64(b.joined)); ok {
			out = append(out, Finding{Name: sh.name, What: sh.what, Encoding: "base64-encoded, wrapped", Start: b.pos(0), End: b.pos(len(b.joined)-1) + 1})
		}
	}
	return out
}
