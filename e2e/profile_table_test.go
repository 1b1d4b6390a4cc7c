package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profile check's table keeps its columns in line when a profile or
// model name is longer than the column was: the column widens.
func TestProfileCheckTableAlignsLongNames(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(`[profiles.short]
adapter = "scripted"
auth = "none"
[profiles.a-rather-long-profile-name]
adapter = "scripted"
model = "a-model-name-much-longer-than-its-column"
auth = "none"
`), 0o644)
	out, errOut, _ := sh(t, dir, nil, "git", "agentproto", "profile", "check")
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, "    ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "PROFILE") {
		t.Fatalf("profile check: want a header and two rows:\n%s%s", out, errOut)
	}
	// Each column starts where its header does, on every row.
	for _, col := range []string{"ADAPTER", "MODEL", "AUTH", "CHECKSUM", "KEY", "OK"} {
		at := strings.Index(rows[0], col)
		for _, r := range rows[1:] {
			if len(r) <= at || r[at-1] != ' ' || r[at] == ' ' {
				t.Errorf("column %s (at %d) is out of line in %q\n%s", col, at, r, out)
			}
		}
	}
}
