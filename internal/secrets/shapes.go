package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// shape is the form of a kind of credential, found whoever it belongs to.
type shape struct {
	name string // short, for [redacted:NAME]
	what string // for people: "a GitHub token"
	re   *lazyre.Regexp
}

var shapes = []shape{
	{"github-token", "a GitHub token", lazyre.New(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)},
	{"aws-access-key", "an AWS access key", lazyre.New(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"aws-secret-key", "an AWS secret key", lazyre.New(`(?i)aws.{0,20}secret.{0,20}[A-Za-z0-9/+=]{40}`)},
	{"api-key", "an OpenAI-style API key", lazyre.New(`\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}`)},
	{"slack-token", "a Slack token", lazyre.New(`\bxox[abprs]-[A-Za-z0-9-]{10,}`)},
	{"private-key", "a private key block", lazyre.New(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	{"bearer-token", "a bearer token", lazyre.New(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}`)},
	{"jwt", "a JWT", lazyre.New(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
}

// Runs of characters that could be an encoded credential. The shortest
// shape above (an AWS access key, 20 bytes) is 28 base64 or 40 hex
// characters.
var (
	base64Run = lazyre.New(`[A-Za-z0-9+/_-]{26,}`)
	hexRun    = lazyre.New(`[0-9A-Fa-f]{40,}`)
)

// findShapes appends the credential shapes in text, as written and inside
// base64 or hex runs.
func findShapes(text string, out []Finding) []Finding {
	for _, sh := range shapes {
		for _, m := range sh.re.FindAllStringIndex(text, -1) {
			out = append(out, Finding{Name: sh.name, What: sh.what, Start: m[0], End: m[1]})
		}
	}
	for _, m := range base64Run.FindAllStringIndex(text, -1) {
		if sh, ok := shapeIn(decodeBase64(text[m[0]:m[1]])); ok {
			out = append(out, Finding{Name: sh.name, What: sh.what, Encoding: "base64-encoded", Start: m[0], End: m[1]})
		}
	}
	for _, m := range hexRun.FindAllStringIndex(text, -1) {
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

func shapeIn(texts []string) (shape, bool) {
	for _, t := range texts {
		for _, sh := range shapes {
			if sh.re.MatchString(t) {
				return sh, true
			}
		}
	}
	return shape{}, false
}
