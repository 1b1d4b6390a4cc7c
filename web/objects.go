package web

import (
	"strconv"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// maxDiff bounds the unified diff shown of one work package: past it the
// file list still says what changed.
const maxDiff = 256 << 10

// GitObjects reads blobs and diffs with the git CLI. Both are keyed by
// object ids, which never change, so they are kept once read: a live
// page rebuilt on every ledger move asks git only about new states.
type GitObjects struct {
	Repo *gitrepo.Repo

	mu    sync.Mutex
	blobs map[string][]byte
	diffs map[string]*Diff
}

// Blob reads the blob oid.
func (g *GitObjects) Blob(oid string) ([]byte, error) {
	g.mu.Lock()
	b, ok := g.blobs[oid]
	g.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := g.Repo.BlobByID(oid)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	if g.blobs == nil {
		g.blobs = map[string][]byte{}
	}
	g.blobs[oid] = b
	g.mu.Unlock()
	return b, nil
}

// Diff is what tree changed against the commit base; a diff that cannot
// be read (the objects are not in this clone) says why in Err.
func (g *GitObjects) Diff(base, tree string) *Diff {
	key := base + ".." + tree
	g.mu.Lock()
	d, ok := g.diffs[key]
	g.mu.Unlock()
	if ok {
		return d
	}
	d = g.diff(base, tree)
	g.mu.Lock()
	if g.diffs == nil {
		g.diffs = map[string]*Diff{}
	}
	g.diffs[key] = d
	g.mu.Unlock()
	return d
}

func (g *GitObjects) diff(base, tree string) *Diff {
	d := &Diff{Base: base, Tree: tree}
	out, err := g.Repo.Git("diff", "--no-color", "--no-ext-diff", "--no-renames", "--numstat", "-z", base, tree)
	if err != nil {
		d.Err = "the diff cannot be read from this clone: " + err.Error()
		return d
	}
	d.Files = parseNumstat(string(out))
	for _, f := range d.Files {
		d.Added += f.Added
		d.Deleted += f.Deleted
	}
	text, err := g.Repo.Git("diff", "--no-color", "--no-ext-diff", "--no-renames", base, tree)
	if err != nil {
		d.Err = "the diff cannot be read from this clone: " + err.Error()
		return d
	}
	if len(text) > maxDiff {
		text, d.Cut = text[:maxDiff], true
	}
	d.Text = string(text)
	return d
}

// parseNumstat reads git diff --numstat -z: ADDED TAB DELETED TAB PATH NUL
// per file, "-" for the counts of a binary file.
func parseNumstat(s string) []FileStat {
	var out []FileStat
	for _, rec := range strings.Split(s, "\x00") {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		f := FileStat{Path: parts[2]}
		if parts[0] == "-" {
			f.Binary = true
		} else {
			f.Added, _ = strconv.Atoi(parts[0])
			f.Deleted, _ = strconv.Atoi(parts[1])
		}
		out = append(out, f)
	}
	return out
}
