package worktree

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// trustRecord is one line of the trust file:
//
//	DIGEST TIME COMMIT [cmds=DIGEST scripts=BASE64-JSON]
//
// Lines written before scripts were covered have the first three fields
// only; they still trust hooks that name no script.
type trustRecord struct {
	digest   string
	time     string
	commit   string
	commands string
	scripts  map[string]string
}

func (r trustRecord) line() string {
	if r.time == "" {
		r.time = time.Now().UTC().Format(time.RFC3339)
	}
	s := fmt.Sprintf("%s %s %s cmds=%s", r.digest, r.time, r.commit, r.commands)
	if len(r.scripts) > 0 {
		s += " scripts=" + base64.RawURLEncoding.EncodeToString(encodeScripts(r.scripts))
	}
	return s
}

// encodeScripts writes "path NUL id LF" per script in path order: exact
// for any path git allows (JSON would turn invalid UTF-8 into U+FFFD, and
// two names into one).
func encodeScripts(scripts map[string]string) []byte {
	paths := make([]string, 0, len(scripts))
	for p := range scripts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b []byte
	for _, p := range paths {
		b = append(append(append(append(b, p...), 0), scripts[p]...), '\n')
	}
	return b
}

func decodeScripts(b []byte) map[string]string {
	out := map[string]string{}
	for _, rec := range strings.Split(string(b), "\n") {
		if p, oid, ok := strings.Cut(rec, "\x00"); ok {
			out[p] = oid
		}
	}
	return out
}

func parseTrustLine(line string) (trustRecord, bool) {
	f := strings.Fields(line)
	if len(f) < 1 {
		return trustRecord{}, false
	}
	r := trustRecord{digest: f[0]}
	if len(f) >= 3 {
		r.time, r.commit = f[1], f[2]
	}
	for _, kv := range f[min(3, len(f)):] {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "cmds":
			r.commands = v
		case "scripts":
			if b, err := base64.RawURLEncoding.DecodeString(v); err == nil {
				r.scripts = decodeScripts(b)
			}
		}
	}
	return r, true
}

func readTrust(repo *gitrepo.Repo) ([]trustRecord, error) {
	b, err := os.ReadFile(trustFile(repo))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []trustRecord
	for _, line := range strings.Split(string(b), "\n") {
		if r, ok := parseTrustLine(line); ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// changedScripts compares h's scripts with those of the latest trust of the
// same commands, and names what changed: the files of a directory when git
// can tell them.
func changedScripts(repo *gitrepo.Repo, h *Hooks) []string {
	recs, err := readTrust(repo)
	if err != nil {
		return nil
	}
	cmds := h.commandsDigest()
	var last *trustRecord
	for i := range recs {
		if recs[i].commands == cmds {
			last = &recs[i]
		}
	}
	if last == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for p, oid := range h.Scripts {
		seen[p] = true
		old, ok := last.scripts[p]
		switch {
		case !ok:
			out = append(out, p+" (new)")
		case old != oid && strings.HasSuffix(p, "/"):
			out = append(out, changedBeneath(repo, p, old, oid)...)
		case old != oid:
			out = append(out, p)
		}
	}
	for p := range last.scripts {
		if !seen[p] {
			out = append(out, p+" (gone)")
		}
	}
	sort.Strings(out)
	return slices.Compact(out) // a file may be named and be beneath a named directory
}

// changedBeneath names the files that differ between two trees of dir.
func changedBeneath(repo *gitrepo.Repo, dir, oldTree, newTree string) []string {
	// DiffTrees adds --no-renames, which diff-tree never needs: it finds
	// renames only when asked (-M), whatever the configuration says.
	changed, err := DiffTrees(repo, oldTree, newTree)
	if err != nil {
		return []string{dir}
	}
	var out []string
	for _, p := range changed {
		out = append(out, dir+p)
	}
	if len(out) == 0 {
		return []string{dir}
	}
	return out
}
