package plans

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// files returns the plan's files, in a stable order: plan.toml, SPEC.md,
// CONTRACT.md, then each brief.
func (p *Project) files() ([]string, error) {
	names := []string{PlanFile, "SPEC.md", "CONTRACT.md"}
	// The recon, when the plan has one, is frozen with it: later briefs
	// stand on what it said, and on its corrections.
	if _, err := os.Lstat(filepath.Join(p.Dir, ReconFile)); err == nil {
		names = append(names, ReconFile)
	}
	seen := map[string]bool{}
	for i := range p.Plan.WPs {
		path, err := p.BriefPath(&p.Plan.WPs[i])
		if err != nil {
			return nil, err
		}
		if b := filepath.Base(path); !seen[b] {
			seen[b] = true
			names = append(names, b)
		}
	}
	return names, nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Freeze records the plan, with every file attached, as a plan_frozen
// event. The record id is derived from the content, so freezing an
// unchanged plan again writes nothing. The caller checks the plan first
// and passes its report: a recon is frozen with the verdicts that check
// gave its claims.
func Freeze(p *Project, l gitstore.Store, baseCommit string, checked *Report) (*Frozen, bool, error) {
	names, err := p.files()
	if err != nil {
		return nil, false, err
	}
	f := &Frozen{Project: p.Name, Base: p.Plan.Base, BaseCommit: baseCommit, Gate: p.Plan.Gate, Files: map[string]string{}, WPs: p.Plan.WPs}
	if checked != nil && slices.Contains(names, ReconFile) {
		f.Recon = checked.Recon
	}
	var atts []gitstore.AttachmentInput
	digest := sha256.New()
	fmt.Fprintf(digest, "%s\n", baseCommit)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(p.Dir, n))
		if err != nil {
			return nil, false, fault.Invalidf("reading %s: %v", filepath.Join(Dir, p.Name, n), err)
		}
		f.Files[n] = sha(b)
		fmt.Fprintf(digest, "%s %s\n", n, f.Files[n])
		atts = append(atts, gitstore.AttachmentInput{Name: n, Content: b})
	}
	if f.Recon != nil {
		// The verdicts are part of what is frozen: a checker that judges
		// the same recon otherwise later freezes anew instead of
		// colliding with the earlier record's id.
		b, err := json.Marshal(f.Recon)
		if err != nil {
			return nil, false, err
		}
		fmt.Fprintf(digest, "recon %s\n", sha(b))
	}
	f.RecordID = fmt.Sprintf("plan/%s/frozen/%s", p.Name, hex.EncodeToString(digest.Sum(nil))[:16])
	res, err := frozenKind.Record(l, f.RecordID, *f, atts...)
	if err != nil {
		return nil, false, err
	}
	f.Warnings = res.Warnings
	return f, len(res.Written) == 1, nil
}

// History is what the ledger holds about one plan.
type History struct {
	Frozen *Frozen
	// Amendments recorded after the latest freeze, oldest first.
	Amendments []Amendment
}

// ReadHistory finds the latest freeze of a plan and the amendments after it.
func ReadHistory(l gitstore.Store, project string) (*History, error) {
	h := &History{}
	// A plan's records are plan/NAME/...: the other plans' are not
	// decoded.
	_, err := gitstore.FoldPrefix(l, "plan/"+project+"/", h,
		gitstore.On(frozenKind, func(h *History, e *gitstore.Event, f Frozen) {
			if f.Project == project {
				f.RecordID, f.Time = e.ID, e.Time
				for _, a := range e.Attachments {
					if a.Name == PlanFile {
						f.PlanBlob = a.OID
					}
				}
				h.Frozen, h.Amendments = &f, nil
			}
		}),
		gitstore.On(amendedKind, func(h *History, _ *gitstore.Event, a Amendment) {
			if a.Project == project {
				h.Amendments = append(h.Amendments, a)
			}
		}))
	if err != nil {
		return nil, err
	}
	return h, nil
}

// expected returns the hash each file should have now: the frozen one, or
// for SPEC.md the one after the latest amendment.
func (h *History) expected() map[string]string {
	out := map[string]string{}
	for k, v := range h.Frozen.Files {
		out[k] = v
	}
	for _, a := range h.Amendments { // oldest first: the latest wins
		if a.File == "" {
			out["SPEC.md"] = a.SpecSHA256
		} else {
			out[a.File] = a.FileSHA256
		}
	}
	return out
}

// FileState is one file of a plan compared with its frozen version.
type FileState struct {
	Name   string `json:"name"`
	State  string `json:"state"` // unchanged, modified, missing, added
	Frozen string `json:"frozen_sha256,omitempty"`
	Now    string `json:"sha256,omitempty"`
}

// Drift compares the working files with the frozen plan.
func Drift(p *Project, h *History) ([]FileState, error) {
	want := h.expected()
	names, err := p.files()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []FileState
	for _, n := range names {
		seen[n] = true
		fs := FileState{Name: n, Frozen: want[n]}
		b, err := os.ReadFile(filepath.Join(p.Dir, n))
		switch {
		case err != nil:
			fs.State = "missing"
		case want[n] == "":
			fs.State, fs.Now = "added", sha(b)
		default:
			fs.Now = sha(b)
			fs.State = "unchanged"
			if fs.Now != want[n] {
				fs.State = "modified"
			}
		}
		out = append(out, fs)
	}
	var gone []string
	for n := range want {
		if !seen[n] {
			gone = append(gone, n)
		}
	}
	sort.Strings(gone)
	for _, n := range gone {
		out = append(out, FileState{Name: n, State: "missing", Frozen: want[n]})
	}
	return out, nil
}

// MaxCorrection bounds an amendment's text.
const MaxCorrection = 8000

// ReconFile is the scout's recon in a plan folder (see package scout).
const ReconFile = "RECON.md"

// Amend appends a dated CORRECTION block to the SPEC and records it. The
// record id comes from the text: the same correction twice is recorded once.
func Amend(p *Project, l gitstore.Store, text string, now time.Time) (bool, error) {
	return AmendFile(p, l, "SPEC.md", text, now)
}

// AmendFile is Amend for the SPEC or the recon (ReconFile): a correction
// found later goes in as a dated block, so briefs rendered afterwards
// inherit the fix, never the error.
func AmendFile(p *Project, l gitstore.Store, file, text string, now time.Time) (bool, error) {
	if file != "SPEC.md" && file != ReconFile {
		return false, fault.Invalidf("only SPEC.md and %s take corrections", ReconFile)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return false, fault.Invalidf("--correction is empty")
	}
	if len(text) > MaxCorrection {
		return false, fault.Invalidf("--correction is %d bytes; the limit is %d", len(text), MaxCorrection)
	}
	for _, r := range text {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return false, fault.Invalidf("--correction contains a control character")
		}
	}
	kind := "amend"
	if file == ReconFile {
		kind = "amend-recon"
	}
	id := fmt.Sprintf("plan/%s/%s/%s", p.Name, kind, sha([]byte(text))[:16])
	if _, _, err := l.Get(id); err == nil {
		return false, nil
	} else if !errors.Is(err, gitstore.ErrNotFound) {
		return false, err
	}
	path := filepath.Join(p.Dir, file)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return false, fault.Refusedf("%s is not a regular file; nothing is written through it", file)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		return false, fault.Invalidf("reading %s: %v", file, err)
	}
	date := now.UTC().Format(time.RFC3339)
	after := strings.TrimRight(string(before), "\n") + "\n\n## CORRECTION " + date + "\n\n" + text + "\n"
	if err := os.WriteFile(path, []byte(after), 0o644); err != nil {
		return false, err
	}
	a := Amendment{Project: p.Name, Correction: text, Date: date}
	if file == "SPEC.md" {
		a.SpecSHA256 = sha([]byte(after))
	} else {
		a.File, a.FileSHA256 = file, sha([]byte(after))
	}
	if _, err := amendedKind.Record(l, id, a); err != nil {
		// Leave the file as the user had it: the amendment did not happen.
		os.WriteFile(path, before, 0o644)
		return false, err
	}
	return true, nil
}
