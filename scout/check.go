package scout

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
)

// Verdicts of a claim or a citation.
const (
	Verified   = "verified"   // the quote is where the citation says, within Drift lines
	Moved      = "moved"      // the quote is elsewhere; Found gives where
	Unverified = "unverified" // the quote is nowhere in the base tree, or cannot be checked
)

// Drift is how many lines a quote may sit from its cited line and still
// count as verified: recon is written against a moving tree, and an
// off-by-a-few line number is not an invention.
const Drift = 3

// minQuote is the fewest non-blank characters a quote must have: "}" or
// "return nil" is found in every file and proves nothing.
const minQuote = 12

// maxCandidates bounds how many other files a moved quote is looked for in.
const maxCandidates = 64

// Source is the tree citations are checked against.
type Source interface {
	// File returns the content of path; ok is false when there is none.
	File(path string) (content []byte, ok bool, err error)
	// Grep returns the paths whose content has text on one line.
	Grep(text string) ([]string, error)
}

// CitationVerdict is one citation's result.
type CitationVerdict struct {
	Citation
	Verdict string `json:"verdict"`
	// Found is where the quote is, when verified or moved.
	Found  string `json:"found,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ClaimVerdict is one claim's result: the worst of its citations.
type ClaimVerdict struct {
	ID        string            `json:"id"`
	Text      string            `json:"text"`
	Verdict   string            `json:"verdict"`
	Citations []CitationVerdict `json:"citations"`
	Reason    string            `json:"reason,omitempty"`
}

// Result is a whole recon's check.
type Result struct {
	Verified   int            `json:"verified"`
	Moved      int            `json:"moved"`
	Unverified int            `json:"unverified"`
	Claims     []ClaimVerdict `json:"claims"`
}

// Verdict returns the verdict of claim id, or "" when the recon has none.
func (r *Result) Verdict(id string) string {
	for _, c := range r.Claims {
		if c.ID == id {
			return c.Verdict
		}
	}
	return ""
}

// Check marks every claim of r against src.
func Check(r *Recon, src Source) (*Result, error) {
	res := &Result{Claims: []ClaimVerdict{}}
	for _, c := range r.Claims {
		cv := ClaimVerdict{ID: c.ID, Text: c.Text, Citations: []CitationVerdict{}}
		for _, cite := range c.Citations {
			v, err := checkCitation(cite, src)
			if err != nil {
				return nil, err
			}
			cv.Citations = append(cv.Citations, v)
		}
		cv.Verdict, cv.Reason = claimVerdict(cv.Citations)
		switch cv.Verdict {
		case Verified:
			res.Verified++
		case Moved:
			res.Moved++
		default:
			res.Unverified++
		}
		res.Claims = append(res.Claims, cv)
	}
	return res, nil
}

func claimVerdict(cites []CitationVerdict) (string, string) {
	if len(cites) == 0 {
		return Unverified, "no citation"
	}
	verdict := Verified
	for _, c := range cites {
		switch c.Verdict {
		case Unverified:
			return Unverified, c.String() + ": " + c.Reason
		case Moved:
			verdict = Moved
		}
	}
	return verdict, ""
}

func checkCitation(c Citation, src Source) (CitationVerdict, error) {
	v := CitationVerdict{Citation: c, Verdict: Unverified}
	path, err := repopath.Clean(c.Path)
	if err != nil {
		v.Reason = err.Error()
		return v, nil
	}
	quote := normaliseQuote(c.Quote)
	if len(quote) == 0 {
		v.Reason = "no quoted text"
		return v, nil
	}
	if n := len(strings.ReplaceAll(strings.Join(quote, ""), " ", "")); n < minQuote {
		v.Reason = "quote too short to prove anything (" + strconv.Itoa(n) + " characters)"
		return v, nil
	}
	content, ok, err := src.File(path)
	if err != nil {
		return v, err
	}
	if ok {
		if at := locate(content, quote); len(at) > 0 {
			best := nearest(at, c.Line)
			v.Found = path + ":" + strconv.Itoa(best)
			if abs(best-c.Line) <= Drift {
				v.Verdict = Verified
			} else {
				v.Verdict = Moved
			}
			return v, nil
		}
	}
	// Not in the cited file: the claim may still be true of another.
	paths, err := src.Grep(longest(quote))
	if err != nil {
		return v, err
	}
	sort.Strings(paths)
	for i, p := range paths {
		if i == maxCandidates {
			break
		}
		if p == path {
			continue
		}
		other, ok, err := src.File(p)
		if err != nil {
			return v, err
		}
		if at := locate(other, quote); ok && len(at) > 0 {
			v.Verdict, v.Found = Moved, p+":"+strconv.Itoa(at[0])
			return v, nil
		}
	}
	if ok {
		v.Reason = "the quoted text is not in " + path + " nor anywhere else in the base tree"
	} else {
		v.Reason = path + " is not in the base tree, and the quoted text is nowhere else"
	}
	return v, nil
}

// normaliseQuote drops blank lines at either end and collapses runs of
// white space, so indentation a model re-typed does not count.
func normaliseQuote(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, squash(l))
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// locate returns the 1-based lines where quote starts in content: each
// quoted line must be part of the file's line at its place (a quote may
// leave out a trailing comment or the start of an expression).
func locate(content []byte, quote []string) []int {
	lines := strings.Split(string(bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n"))), "\n")
	var at []int
	for i := 0; i+len(quote) <= len(lines); i++ {
		match := true
		for j, q := range quote {
			if !strings.Contains(squash(lines[i+j]), q) {
				match = false
				break
			}
		}
		if match {
			at = append(at, i+1)
		}
	}
	return at
}

func nearest(at []int, line int) int {
	best := at[0]
	for _, a := range at[1:] {
		if abs(a-line) < abs(best-line) {
			best = a
		}
	}
	return best
}

// longest returns the longest white-space-free run of the quote: a file
// that holds the quote holds it verbatim however its lines are indented.
func longest(quote []string) string {
	best := ""
	for _, q := range quote {
		for _, f := range strings.Fields(q) {
			if len(f) > len(best) {
				best = f
			}
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// GitSource reads a commit of a repository with the git CLI.
type GitSource struct {
	Repo   *gitrepo.Repo
	Commit string
	cache  map[string][]byte
}

// File reads path at the commit; a path that is not a blob there is absent.
func (s *GitSource) File(path string) ([]byte, bool, error) {
	if b, ok := s.cache[path]; ok {
		return b, b != nil, nil
	}
	if s.cache == nil {
		s.cache = map[string][]byte{}
	}
	kind, err := s.Repo.ObjectType(s.Commit + ":" + path)
	if err != nil || kind != "blob" {
		s.cache[path] = nil
		return nil, false, nil
	}
	b, err := s.Repo.Blob(s.Commit, path)
	if err != nil {
		return nil, false, err
	}
	s.cache[path] = b
	return b, true, nil
}

// Grep lists the paths of the commit with text on a line, by git grep.
func (s *GitSource) Grep(text string) ([]string, error) {
	out, err := s.Repo.Git("grep", "-F", "-l", "-z", "--full-name", "-e", text, s.Commit, "--")
	if err != nil {
		var ge *gitrepo.GitError
		if errors.As(err, &ge) && ge.Stderr == "" {
			return nil, nil // exit 1: no match
		}
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p = strings.TrimPrefix(p, s.Commit+":"); p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}
