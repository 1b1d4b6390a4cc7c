package gitstore

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Finding is one problem `ledger verify` found.
type Finding struct {
	Code    string `json:"code"`
	Ref     string `json:"ref"`
	Commit  string `json:"commit,omitempty"`
	ID      string `json:"id,omitempty"`
	Message string `json:"message"`
}

// VerifyReport is the outcome of Verify.
type VerifyReport struct {
	Refs     int       `json:"refs"`
	Events   int       `json:"events"`
	Findings []Finding `json:"findings"`
}

// OK reports whether the ledger has no findings.
func (r *VerifyReport) OK() bool { return len(r.Findings) == 0 }

// Verify reads every event of every writer ref straight from git (not from
// the index) and checks envelopes, ids, clocks, chain shape and attachments.
func (l *Ledger) Verify() (*VerifyReport, error) {
	tips, broken, err := l.refs.ListAll(LedgerRefPrefix)
	if err != nil {
		return nil, err
	}
	rep := &VerifyReport{Refs: len(tips) + len(broken), Findings: []Finding{}}
	for _, b := range broken {
		rep.Findings = append(rep.Findings, Finding{Code: "unreadable-ref", Ref: b.Name, Message: b.Error()})
	}
	refs := make([]string, 0, len(tips))
	for r := range tips {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	type seenID struct {
		ref, commit, content string
	}
	byID := map[string]seenID{}
	seals, err := l.verifySeals()
	if err != nil {
		return nil, err
	}
	for _, ref := range refs {
		writer := strings.TrimPrefix(ref, LedgerRefPrefix)
		commits, err := l.repo.Log(tips[ref])
		if err != nil {
			rep.Findings = append(rep.Findings, Finding{Code: "unreadable-ref", Ref: ref, Message: err.Error()})
			continue
		}
		var lastLamport uint64
		for i := len(commits) - 1; i >= 0; i-- { // oldest first
			commit, tree, parents := commits[i].ID, commits[i].Tree, commits[i].Parents
			msg := []byte(commits[i].Message)
			rep.Events++
			add := func(code, id, format string, args ...any) {
				rep.Findings = append(rep.Findings, Finding{Code: code, Ref: ref, Commit: commit, ID: id, Message: fmt.Sprintf(format, args...)})
			}
			if len(parents) > 1 {
				add("merge-commit", "", "ledger commits must form a single chain; this one has %d parents", len(parents))
			}
			e, err := decodeEnvelope(envelopeOf(msg))
			if err != nil {
				add("bad-envelope", "", "%v", err)
				continue
			}
			summary, _, _ := bytes.Cut(msg, []byte{'\n'})
			if string(summary) != "agentproto "+e.Kind+" "+e.ID {
				add("summary-mismatch", e.ID, "commit summary %q does not match the envelope", summary)
			}
			if e.Writer != writer {
				add("wrong-writer", e.ID, "envelope names writer %s on %s", e.Writer, ref)
			}
			if canon, err := canonicalData(e.Data); err != nil || !bytes.Equal(canon, e.Data) {
				add("data-not-canonical", e.ID, "data is not canonical JSON")
			}
			if e.Lamport <= lastLamport {
				add("clock-not-increasing", e.ID, "lamport %d follows %d on the same writer", e.Lamport, lastLamport)
			} else if lastLamport > 0 && e.Lamport-lastLamport > lamportJumpCap {
				add("clock-jump", e.ID, "lamport jumps from %d to %d", lastLamport, e.Lamport)
			}
			lastLamport = e.Lamport
			l.verifyAttachments(e, tree, add)
			if writer == seals.writer && !seals.legacy[commit] {
				if err := badSeal(e, seals.key); err != nil {
					code := "bad-seal"
					if e.Seal == "" {
						code = "unsealed"
					}
					add(code, e.ID, "%v", err)
				}
			}
			key := e.contentKey()
			if prev, ok := byID[e.ID]; ok && prev.content != key {
				add("id-conflict", e.ID, "record id also used with other content by commit %s on %s", prev.commit[:12], prev.ref)
			} else if !ok {
				byID[e.ID] = seenID{ref: ref, commit: commit, content: key}
			}
		}
	}
	if err := l.verifyKept(rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// sealCheck is what Verify needs to check this clone's own seals: its
// writer, its key, and the commits written before it held one.
type sealCheck struct {
	writer string
	key    []byte
	legacy map[string]bool
}

func (l *Ledger) verifySeals() (*sealCheck, error) {
	writer, err := l.ownWriter()
	if err != nil || writer == "" {
		return &sealCheck{}, err
	}
	key, since, err := l.sealKey(writer, l.ownTip(writer))
	if err != nil {
		return nil, err
	}
	c := &sealCheck{writer: writer, key: key, legacy: map[string]bool{}}
	if since != "" {
		out, err := l.repo.Git("rev-list", since)
		if err != nil {
			return nil, fmt.Errorf("reading the events written before seals: %w", err)
		}
		for _, id := range strings.Fields(string(out)) {
			c.legacy[id] = true
		}
	}
	return c, nil
}

func (l *Ledger) verifyAttachments(e *Event, tree string, add func(code, id, format string, args ...any)) {
	if len(e.Attachments) == 0 {
		if tree != emptyTreeOID {
			add("unexpected-tree", e.ID, "event has no attachments but its tree is not empty")
		}
		return
	}
	out, err := l.repo.Git("ls-tree", "-l", tree)
	if err != nil {
		add("attachment-missing", e.ID, "cannot read tree %s: %v", tree, err)
		return
	}
	entries := map[string][2]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		meta, name, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if ok && len(f) == 4 {
			entries[name] = [2]string{f[2], f[3]}
		}
	}
	for _, a := range e.Attachments {
		got, ok := entries[a.Name]
		switch {
		case !ok:
			add("attachment-missing", e.ID, "attachment %s is not in the commit tree", a.Name)
		case got[0] != a.OID:
			add("attachment-mismatch", e.ID, "attachment %s is blob %s in the tree, %s in the envelope", a.Name, got[0], a.OID)
		case got[1] != strconv.FormatInt(a.Size, 10):
			add("attachment-mismatch", e.ID, "attachment %s has %s bytes, the envelope says %d", a.Name, got[1], a.Size)
		}
	}
}
