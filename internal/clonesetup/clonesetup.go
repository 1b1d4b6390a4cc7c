// Package clonesetup prepares a clone for agentproto: its writer id, the
// ledger fetch refspec, a commented agentproto.toml and the plans exclude.
package clonesetup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// excludeLine keeps plan working files out of commits on every branch.
const excludeLine = "/.plans/"

// Prepare makes repo ready for agentproto, changing only what is missing,
// and returns this clone's writer id and one line per change.
func Prepare(repo *gitrepo.Repo, remote string) (writer string, changed []string, err error) {
	writer, created, err := gitstore.EnsureWriterID(repo.CommonDir)
	if err != nil {
		return writer, changed, err
	}
	if created {
		changed = append(changed, "created writer id "+writer)
	}
	if _, err := repo.RemoteURL(remote); err == nil {
		added, err := gitstore.EnsureFetchRefspecs(repo, remote, writer)
		if err != nil {
			return writer, changed, err
		}
		for _, s := range added {
			changed = append(changed, fmt.Sprintf("added fetch refspec %s to remote %s", s, remote))
		}
	}
	if repo.WorkTree != "" {
		path := filepath.Join(repo.WorkTree, config.FileName)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(path, []byte(config.Template), 0o644); err != nil {
				return writer, changed, err
			}
			changed = append(changed, "wrote "+config.FileName)
		}
	}
	if ok, err := ensureExcluded(repo.Path("info", "exclude")); err != nil {
		return writer, changed, err
	} else if ok {
		changed = append(changed, "excluded "+excludeLine+" in info/exclude")
	}
	return writer, changed, nil
}

// ensureExcluded appends the .plans/ line to info/exclude unless present.
func ensureExcluded(path string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if string(bytes.TrimSpace(l)) == excludeLine {
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	b = append(b, "# agentproto plan working files\n"+excludeLine+"\n"...)
	return true, os.WriteFile(path, b, 0o644)
}
