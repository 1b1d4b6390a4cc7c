package judge

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// tampered lists the tracked files of commit whose copy in dir no longer
// holds what git holds: agent code that ran in the copy (its tests, the
// gate) rewrote the tree the judges read. Files it added are not
// counted (builds leave outputs); a tracked file changed or removed is.
func tampered(repo *gitrepo.Repo, commit, dir string) ([]string, error) {
	entries, err := repo.ListTree(commit)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, e := range entries {
		if e.Type != "blob" {
			continue
		}
		got, err := blobID(filepath.Join(dir, filepath.FromSlash(e.Path)), e.IsSymlink(), len(e.ID))
		if err != nil || got != e.ID {
			changed = append(changed, e.Path)
		}
	}
	return changed, nil
}

// blobID is the git object id of the file at path as a blob (a symlink's
// target for a link), in the hash git uses for ids of that length.
func blobID(path string, link bool, idLen int) (string, error) {
	var content []byte
	var err error
	if link {
		var target string
		target, err = os.Readlink(path)
		content = []byte(target)
	} else {
		var fi os.FileInfo
		if fi, err = os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%s is no longer a file", path)
		}
		content, err = os.ReadFile(path)
	}
	if err != nil {
		return "", err
	}
	var h hash.Hash = sha1.New()
	if idLen == 64 {
		h = sha256.New()
	}
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil)), nil
}
