package secrets

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Finding is a secret found in a text. It names the secret, never its
// value.
type Finding struct {
	// Name is the variable whose value was found (GH_TOKEN) or the kind of
	// credential (github-token); it goes into [redacted:NAME].
	Name string
	// What says it for people: "the value of $GH_TOKEN", "a GitHub token".
	What string
	// Encoding is how it was hidden ("base64-encoded"), or "" as written.
	Encoding   string
	Start, End int // byte offsets in the text
}

// known reports whether the finding is a value the set holds, not a shape.
func (f Finding) known() bool { return f.What == "the value of $"+f.Name }

func (f Finding) String() string {
	if f.Encoding == "" {
		return f.What
	}
	return f.What + " (" + f.Encoding + ")"
}

// Find returns the secrets in text, ordered by where they start.
func (s *Set) Find(text string) []Finding {
	var out []Finding
	s.eachNeedle(text, func(n needle, start, end int) {
		out = append(out, Finding{Name: n.name, What: "the value of $" + n.name, Encoding: n.encoding, Start: start, End: end})
	})
	out = append(out, s.findInvisible(text)...)
	out = findShapes(text, out)
	out = s.findWrapped(text, out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// maxScrubPasses bounds Scrub's passes: taking a secret out can bring two
// pieces of text together that make a new one (aws ... secret, then a key
// that was too far away), so Scrub runs until nothing is found.
const maxScrubPasses = 8

// redactedAll replaces a whole text that would not come clean.
const redactedAll = "[redacted]"

// Scrub returns text with every secret replaced by [redacted:NAME].
func (s *Set) Scrub(text string) string {
	for pass := 0; pass < maxScrubPasses; pass++ {
		found := s.Find(text)
		if len(found) == 0 {
			return text
		}
		text = replace(text, found)
	}
	if len(s.Find(text)) == 0 {
		return text
	}
	return redactedAll
}

// replace replaces each run of overlapping findings (sorted by Start) by
// the marker of its first.
func replace(text string, found []Finding) string {
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for i := 0; i < len(found); {
		start, end, name := found[i].Start, found[i].End, found[i].Name
		for i++; i < len(found) && found[i].Start < end; i++ {
			end = max(end, found[i].End)
		}
		if start < last {
			start = last
		}
		b.WriteString(text[last:start])
		b.WriteString("[redacted:" + name + "]")
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// ScrubBytes is Scrub for captured output.
func (s *Set) ScrubBytes(b []byte) []byte {
	if len(s.Find(string(b))) == 0 {
		return b
	}
	return []byte(s.Scrub(string(b)))
}

// tailMargin is scrubbed beyond the tail ScrubTail keeps, so that a secret
// the cut falls into is whole when it is looked for.
const tailMargin = 4 << 10

// ScrubTail returns the last max bytes of b scrubbed of secrets, and
// whether anything was cut off. Only the tail and a margin are scrubbed,
// so a huge output costs what it keeps.
func (s *Set) ScrubTail(b []byte, max int) ([]byte, bool) {
	if len(b) <= max {
		return s.ScrubBytes(b), false
	}
	out := s.ScrubBytes(b[len(b)-max-min(tailMargin, len(b)-max):])
	return out[len(out)-min(max, len(out)):], true
}

// invisible are characters that show nothing: put inside a value, they
// hide it from a plain search.
var invisible = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "", "\u00ad", "")

// findInvisible finds the known values in text with its invisible
// characters taken out, at their places in text.
func (s *Set) findInvisible(text string) []Finding {
	if invisible.Replace(text) == text {
		return nil
	}
	// at[i] is the offset in text of the i-th byte kept.
	var kept strings.Builder
	var at []int
	for i := 0; i < len(text); {
		// The bytes as written, not the decoded rune: a byte that is not
		// UTF-8 decodes to U+FFFD, three bytes for one, and its places
		// would run past the text.
		_, n := utf8.DecodeRuneInString(text[i:])
		if ch := text[i : i+n]; invisible.Replace(ch) != "" {
			kept.WriteString(ch)
			for k := 0; k < n; k++ {
				at = append(at, i+k)
			}
		}
		i += n
	}
	var out []Finding
	s.eachNeedle(kept.String(), func(n needle, start, end int) {
		out = append(out, Finding{Name: n.name, What: "the value of $" + n.name, Encoding: "with invisible characters", Start: at[start], End: at[end-1] + 1})
	})
	return out
}

// eachNeedle calls fn with every place in text a form of a known value
// is, overlapping ones included.
func (s *Set) eachNeedle(text string, fn func(n needle, start, end int)) {
	for _, n := range s.needles {
		for from := 0; ; {
			i := strings.Index(text[from:], n.text)
			if i < 0 {
				break
			}
			start := from + i
			fn(n, start, start+len(n.text))
			from = start + 1
		}
	}
}
