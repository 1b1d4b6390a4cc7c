// Package scout reads the recon document a scout session writes before a
// plan exists, and checks every claim in it against the source it cites.
// Recon documents invent things — an event an endpoint never emitted, a
// function that is not there — so nothing a later brief relies on is taken
// on the scout's word: each claim carries a citation (path:line and the
// quoted text) and is marked verified, moved or unverified by reading the
// base tree.
//
// The format, which the scout's prompt spells out:
//
//	## C1: Orders emit order_created on create
//	`api/orders.go:42`
//	> bus.Emit("order_created", o)
//
// A claim is a level-2 or level-3 heading "C<n>: text"; each citation is a
// back-quoted path:line on a line of its own followed by one or more "> "
// lines of quoted source. Dated "## CORRECTION <date>" blocks (written by
// plan amend --recon) are kept apart: they are the supervisor's, not the
// scout's, and reach every brief rendered afterwards.
package scout

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
)

// File is the recon document's name in the plan folder.
const File = "RECON.md"

// Limits on what a recon may hold, so a runaway scout cannot make a check
// read the whole repository once per line.
const (
	MaxClaims    = 500
	MaxCitations = 20 // per claim
	MaxQuote     = 40 // lines per citation
)

// Claim is one numbered statement of the recon.
type Claim struct {
	ID        string     `json:"id"`
	Text      string     `json:"text"`
	Line      int        `json:"line"` // of its heading in RECON.md
	Citations []Citation `json:"citations"`
}

// Citation is where a claim says its evidence is.
type Citation struct {
	Path  string   `json:"path"`
	Line  int      `json:"line"`
	Quote []string `json:"quote"`
}

// Correction is a dated block the supervisor added after the recon.
type Correction struct {
	Date string `json:"date"`
	Text string `json:"text"`
}

// Recon is a parsed recon document.
type Recon struct {
	Claims      []Claim      `json:"claims"`
	Corrections []Correction `json:"corrections,omitempty"`
}

var (
	claimHeading      = lazyre.New(`^#{2,3}\s+(C[0-9]{1,4})\s*[:.—-]\s*(.*\S)\s*$`)
	correctionHeading = lazyre.New(`^##\s+CORRECTION\s+(\S+)\s*$`)
	otherHeading      = lazyre.New(`^#{1,3}\s`)
	citationLine      = lazyre.New("^\\s*[-*]?\\s*`([^`:]+):([0-9]{1,7})`\\s*$")
)

// Parse reads a recon document. Claim ids must be unique; a citation's path
// is kept as written (Check normalises and contains it).
func Parse(doc []byte) (*Recon, error) {
	r := &Recon{Claims: []Claim{}}
	seen := map[string]int{}
	var claim *Claim
	var cite *Citation
	var corr *Correction
	var corrText []string
	endCorrection := func() {
		if corr != nil {
			corr.Text = strings.TrimSpace(strings.Join(corrText, "\n"))
			r.Corrections = append(r.Corrections, *corr)
			corr, corrText = nil, nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if m := correctionHeading.FindStringSubmatch(line); m != nil {
			endCorrection()
			claim, cite = nil, nil
			corr = &Correction{Date: m[1]}
			continue
		}
		if m := claimHeading.FindStringSubmatch(line); m != nil {
			endCorrection()
			if first, dup := seen[m[1]]; dup {
				return nil, fault.Invalidf("%s line %d: claim %s is already defined at line %d", File, n, m[1], first)
			}
			if len(r.Claims) == MaxClaims {
				return nil, fault.Invalidf("%s has more than %d claims", File, MaxClaims)
			}
			seen[m[1]] = n
			r.Claims = append(r.Claims, Claim{ID: m[1], Text: m[2], Line: n, Citations: []Citation{}})
			claim, cite = &r.Claims[len(r.Claims)-1], nil
			continue
		}
		if corr != nil {
			corrText = append(corrText, line)
			continue
		}
		if otherHeading.MatchString(line) {
			claim, cite = nil, nil
			continue
		}
		if claim == nil {
			continue
		}
		if m := citationLine.FindStringSubmatch(line); m != nil {
			if len(claim.Citations) == MaxCitations {
				return nil, fault.Invalidf("%s line %d: claim %s has more than %d citations", File, n, claim.ID, MaxCitations)
			}
			at, _ := strconv.Atoi(m[2])
			if at < 1 {
				return nil, fault.Invalidf("%s line %d: citation line numbers start at 1", File, n)
			}
			claim.Citations = append(claim.Citations, Citation{Path: strings.TrimSpace(m[1]), Line: at, Quote: []string{}})
			cite = &claim.Citations[len(claim.Citations)-1]
			continue
		}
		if q, ok := quoteText(line); ok && cite != nil {
			if len(cite.Quote) == MaxQuote {
				return nil, fault.Invalidf("%s line %d: a quote is limited to %d lines", File, n, MaxQuote)
			}
			cite.Quote = append(cite.Quote, q)
			continue
		}
		if strings.TrimSpace(line) != "" {
			cite = nil // prose ends a quote
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fault.Invalidf("reading %s: %v", File, err)
	}
	endCorrection()
	return r, nil
}

// quoteText returns the text of a "> " line.
func quoteText(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(t, ">") {
		return "", false
	}
	t = t[1:]
	if strings.HasPrefix(t, " ") {
		t = t[1:]
	}
	return t, true
}

// Claim returns the claim with id, or nil.
func (r *Recon) Claim(id string) *Claim {
	for i := range r.Claims {
		if r.Claims[i].ID == id {
			return &r.Claims[i]
		}
	}
	return nil
}

// String renders a citation as the recon writes it.
func (c Citation) String() string { return fmt.Sprintf("%s:%d", c.Path, c.Line) }
