package cliturn

import (
	"fmt"
	"strings"
)

// Split breaks a command template into words the way a shell would for
// plain words and quotes ('...' and "..."), without running a shell.
func Split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c quote in %q", c, s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			i++
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Expand replaces {prompt}, {model} and {session} in each word, in one pass
// over the template: a value is never scanned again, so a model named
// "{prompt}" or a path holding "{model}" stays as it is, whatever the
// order of vars.
func Expand(words []string, vars map[string]string) []string {
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	r := strings.NewReplacer(pairs...)
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, r.Replace(w))
	}
	return out
}
