package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// shape is the form of a kind of credential, found whoever it belongs to.
// Every match starts with one of lits (case-folded when fold), and the
// expression is tried anchored at each: its cost is the length of the
// attempt, not of the text (unanchored, the expressions ran at under
// 1 MB/s over a log, and a log full of "sk-" made it quadratic).
type shape struct {
	name string // short, for [redacted:NAME]
	what string // for people: "a GitHub token"
	lits []string
	fold bool
	word bool // the match starts at a word boundary
	re   *lazyre.Regexp
}

func newShape(name, what string, lits []string, fold, word bool, expr string) shape {
	flags := ""
	if fold {
		flags = "(?i)"
	}
	return shape{name, what, lits, fold, word, lazyre.New(flags + `^(?:` + expr + `)`)}
}

var shapes = []shape{
	newShape("github-token", "a GitHub token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, false, true,
		`gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}`),
	newShape("aws-access-key", "an AWS access key", []string{"AKIA", "ASIA"}, false, true, `(AKIA|ASIA)[0-9A-Z]{16}\b`),
	newShape("aws-secret-key", "an AWS secret key", []string{"aws"}, true, false, `aws.{0,20}secret.{0,20}[A-Za-z0-9/+=]{40}`),
	newShape("api-key", "an OpenAI-style API key", []string{"sk-"}, false, true, `sk-(proj-|ant-)?[A-Za-z0-9_-]{20,}`),
	newShape("slack-token", "a Slack token", []string{"xox"}, false, true, `xox[abprs]-[A-Za-z0-9-]{10,}`),
	newShape("private-key", "a private key block", []string{"-----BEGIN "}, false, false, `-----BEGIN [A-Z ]*PRIVATE KEY-----`),
	newShape("bearer-token", "a bearer token", []string{"bearer"}, true, true, `bearer\s+[A-Za-z0-9._~+/=-]{16,}`),
	newShape("jwt", "a JWT", []string{"eyJ"}, false, true, `eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
}

// find returns the matches of sh in text; lower is text ASCII-lowered
// (same offsets), for the folded shapes. n > 0 stops after n.
func (sh *shape) find(text, lower string, n int) [][2]int {
	hay := text
	if sh.fold {
		hay = lower
	}
	var out [][2]int
	for _, lit := range sh.lits {
		for at := 0; at < len(hay); {
			i := strings.Index(hay[at:], lit)
			if i < 0 {
				break
			}
			p := at + i
			at = p + 1
			if sh.word && p > 0 && isWordChar(text[p-1]) {
				continue
			}
			m := sh.re.FindStringIndex(text[p:])
			if m == nil {
				continue
			}
			out = append(out, [2]int{p, p + m[1]})
			if n > 0 && len(out) >= n {
				return out
			}
			at = p + m[1]
		}
	}
	return out
}

// isWordChar is \b's idea of a word character (ASCII).
func isWordChar(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_'
}

// asciiLower lowers ASCII letters only, keeping every offset.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// An encoded credential is a run of base64 or hex characters at least
// this long: the shortest shape above (an AWS access key, 20 bytes) is 28
// base64 or 40 hex characters.
const (
	minBase64Run = 26
	minHexRun    = 40
)

func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

func isHexChar(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// runs returns the maximal runs of characters in class at least min long.
func runs(text string, class func(byte) bool, min int) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		if !class(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && class(text[j]) {
			j++
		}
		if j-i >= min {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// findShapes appends the credential shapes in text, as written and inside
// base64 or hex runs.
func findShapes(text string, out []Finding) []Finding {
	lower := asciiLower(text)
	for i := range shapes {
		sh := &shapes[i]
		for _, m := range sh.find(text, lower, -1) {
			out = append(out, Finding{Name: sh.name, What: sh.what, Start: m[0], End: m[1]})
		}
	}
	for _, m := range runs(text, isBase64Char, minBase64Run) {
		if sh, ok := shapeIn(decodeBase64(text[m[0]:m[1]])); ok {
			out = append(out, Finding{Name: sh.name, What: sh.what, Encoding: "base64-encoded", Start: m[0], End: m[1]})
		}
	}
	for _, m := range runs(text, isHexChar, minHexRun) {
		run := text[m[0]:m[1]]
		var decoded []string
		for off := 0; off < 2; off++ {
			b, _ := hex.DecodeString(run[off : off+(len(run)-off)/2*2])
			decoded = append(decoded, string(b))
		}
		if sh, ok := shapeIn(decoded); ok {
			out = append(out, Finding{Name: sh.name, What: sh.what, Encoding: "hex-encoded", Start: m[0], End: m[1]})
		}
	}
	return out
}

// decodeBase64 decodes a run at each of the four character alignments it
// could start at, in either alphabet; what is not base64 decodes to junk
// that matches no shape.
func decodeBase64(run string) []string {
	std := strings.NewReplacer("-", "+", "_", "/").Replace(run)
	var out []string
	for off := 0; off < 4 && off < len(std); off++ {
		part := std[off:]
		part = part[:len(part)/4*4]
		if b, err := base64.StdEncoding.DecodeString(part); err == nil {
			out = append(out, string(b))
		}
	}
	return out
}

func shapeIn(texts []string) (*shape, bool) {
	for _, t := range texts {
		lower := asciiLower(t)
		for i := range shapes {
			if len(shapes[i].find(t, lower, 1)) > 0 {
				return &shapes[i], true
			}
		}
	}
	return nil, false
}
