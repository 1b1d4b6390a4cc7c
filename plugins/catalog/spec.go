// Package catalog knows the adapters this machine can run without running
// any: where each binary is (the config's path or PATH), its pinned
// checksum, and whether it and the options a committed agentproto.toml
// gives it are trusted here. Package host launches what it finds; the CLI
// reads the catalog without linking the plugin transport.
package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// Spec says which binary serves an adapter.
type Spec struct {
	Name   string
	Path   string
	SHA256 string // pinned checksum; "" when not pinned
}

// FileSHA256 returns the checksum of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
