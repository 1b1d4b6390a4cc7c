package acp

import (
	"sort"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"
)

// locations lists the paths a tool call names: its locations and every
// path-like value of its raw input, at any depth. Agents differ in which
// they fill and in the names they use (file_path, notebook_path, from and
// to, source and destination, codex's changes keyed by path with a
// move_path inside), so every key whose name says it holds a path is
// read, nested or not.
func locations(locs []acpsdk.ToolCallLocation, raw any) []string {
	ps := &pathSet{seen: map[string]bool{}}
	for _, l := range locs {
		ps.add(l.Path)
	}
	ps.walk(raw, false)
	return ps.list
}

// pathSet collects paths once each, in the order found.
type pathSet struct {
	seen map[string]bool
	list []string
}

func (ps *pathSet) add(p string) {
	p = strings.TrimPrefix(p, "file://")
	if p != "" && !ps.seen[p] {
		ps.seen[p] = true
		ps.list = append(ps.list, p)
	}
}

// walk reads v; named says v is the value of a path-like key, so the
// strings in it are paths. A patch in the apply_patch format names its
// files in its headers, whatever key carries it.
func (ps *pathSet) walk(v any, named bool) {
	switch v := v.(type) {
	case string:
		if named {
			ps.add(v)
		} else if strings.Contains(v, "*** Begin Patch") {
			ps.patch(v)
		}
	case []any:
		for _, e := range v {
			ps.walk(e, named)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if m, ok := v[k].(map[string]any); ok && strings.EqualFold(k, "changes") {
				for p := range m { // a patch: its keys are the paths
					ps.add(p)
				}
			}
			ps.walk(v[k], pathKey(k))
		}
	}
}

// patchHeaders start the lines of an apply_patch patch that name a file.
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

func (ps *pathSet) patch(text string) {
	for _, line := range strings.Split(text, "\n") {
		for _, h := range patchHeaders {
			if p, ok := strings.CutPrefix(strings.TrimSpace(line), h); ok {
				ps.add(strings.TrimSpace(p))
			}
		}
	}
}

// pathWords are the keys that name a file or directory without saying
// "path".
var pathWords = map[string]bool{
	"file": true, "files": true, "filename": true, "filenames": true, "targetfile": true, "sourcefile": true,
	"destfile": true, "destinationfile": true, "from": true, "to": true, "source": true, "src": true,
	"destination": true, "dest": true, "dst": true, "target": true, "uri": true, "location": true,
	"dir": true, "directory": true, "folder": true,
}

// pathKey says whether a raw-input key names a path: it says "path"
// (file_path, old_path, new_path, move_path, paths), or it is one of
// pathWords, in any case, with or without _ and -.
func pathKey(k string) bool {
	k = strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(k))
	return strings.Contains(k, "path") || pathWords[k]
}
