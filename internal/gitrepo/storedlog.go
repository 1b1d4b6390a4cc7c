package gitrepo

import (
	"bytes"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// storedChainMax bounds the commits storedRange walks before leaving the
// range to git: the ranges it serves (what was appended to a ledger ref
// while one work package ran) are a few commits long.
const storedChainMax = 512

// storedRange answers git log since..tip from the stored objects when the
// range is one chain: each commit from tip down has exactly one parent,
// until since. Then what tip reaches and since does not is that chain,
// newest first, as git lists it. A merge, a root, a chain longer than
// storedChainMax, a message git would re-encode or cut at a NUL byte —
// anything else is git's to answer.
func (r *Repo) storedRange(rng string) ([]CommitInfo, bool) {
	since, tip, ok := strings.Cut(rng, "..")
	if !ok || since == "" || tip == "" || strings.Contains(tip, ".") {
		return nil, false
	}
	rd, done, ok := r.stored()
	if !ok {
		return nil, false
	}
	defer done()
	stop, _, ok := r.storedCommit(rd, since)
	if !ok {
		return nil, false
	}
	id, body, ok := r.storedCommit(rd, tip)
	if !ok {
		return nil, false
	}
	var commits []CommitInfo
	for id != stop {
		if len(commits) == storedChainMax {
			return nil, false
		}
		c, ok := parseStoredCommit(id, body)
		if !ok || len(c.Parents) != 1 {
			return nil, false
		}
		commits = append(commits, c)
		if id, ok = parseID(c.Parents[0]); !ok {
			return nil, false
		}
		if id == stop {
			break
		}
		if body, ok = readStored(rd, id, plumbing.CommitObject); !ok {
			return nil, false
		}
	}
	return commits, true
}

// parseStoredCommit reads a commit object's tree, parents and message as
// git log's %T %P %B give them; false for what git would print otherwise.
func parseStoredCommit(id plumbing.Hash, body []byte) (CommitInfo, bool) {
	c := CommitInfo{ID: id.String()}
	header, msg, _ := bytes.Cut(body, []byte("\n\n"))
	if bytes.IndexByte(msg, 0) >= 0 {
		return c, false // %B stops at a NUL
	}
	for _, line := range bytes.Split(header, []byte{'\n'}) {
		key, value, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			c.Tree = string(value)
		case "parent":
			c.Parents = append(c.Parents, string(value))
		case "encoding":
			return c, false // git log re-encodes the message
		}
	}
	if _, ok := parseID(c.Tree); !ok {
		return c, false
	}
	c.Message = string(msg)
	return c, true
}
