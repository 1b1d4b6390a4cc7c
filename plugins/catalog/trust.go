package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// An adapter named by [plugins.NAME] path comes from agentproto.toml, a
// file any commit can change — an agent's included. Such a binary is code
// the repository asks us to run, so like a worktree hook it runs only once
// its bytes are trusted on this machine. Trust is recorded per clone, under
// the common git dir, by the sha256 of the binary: any change to it needs
// trust again. A sha256 pinned in agentproto.toml checks the binary but
// cannot stand for trust, since the same commit could set it. Adapters
// found on PATH are the user's own installation and need none.

// TrustFile is where plugin trust is kept, under the common git dir.
const TrustFile = "agentproto/trusted-plugins"

func trustPath(root string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("no repository to keep plugin trust in")
	}
	repo, err := gitrepo.Discover(root)
	if err != nil {
		return "", err
	}
	return repo.Path(TrustFile), nil
}

// trusted reports whether a binary with this sha256 was trusted.
func trusted(root, sum string) (bool, error) {
	path, err := trustPath(root)
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.EqualFold(f[0], sum) {
			return true, nil
		}
	}
	return false, nil
}

// Trust records the binary of a config adapter as trusted on this machine
// and reports whether it was new. It hashes the binary again, so that what
// is trusted is what is on disk now.
func Trust(f Found, root string) (bool, error) {
	if f.Source != SourceConfig {
		return false, nil
	}
	sum, err := FileSHA256(f.Path)
	if err != nil {
		return false, err
	}
	if ok, err := trusted(root, sum); err != nil || ok {
		return false, err
	}
	path, err := trustPath(root)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	file, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err
	}
	defer file.Close()
	_, err = fmt.Fprintf(file, "%s %s %s %q\n", sum, time.Now().UTC().Format(time.RFC3339), f.Name, f.Path)
	return err == nil, err
}
