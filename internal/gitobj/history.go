package gitobj

import (
	"bytes"
	"os"
	"path/filepath"
)

// RewritesHistory reports whether git would see other parents or other
// objects than the ones stored in the repository whose common git dir is
// common: replace refs, grafts, a shallow clone, or an environment that
// moves the object store. Readers of the stored objects leave such a
// repository to git.
func RewritesHistory(common string) bool {
	for _, k := range []string{"GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_SHALLOW_FILE"} {
		if os.Getenv(k) != "" {
			return true
		}
	}
	for _, p := range []string{"shallow", "info/grafts"} {
		if _, err := os.Stat(filepath.Join(common, p)); err == nil {
			return true
		}
	}
	if entries, err := os.ReadDir(filepath.Join(common, "refs", "replace")); err == nil && len(entries) > 0 {
		return true
	}
	packed, _ := os.ReadFile(filepath.Join(common, "packed-refs"))
	return bytes.Contains(packed, []byte(" refs/replace/"))
}
