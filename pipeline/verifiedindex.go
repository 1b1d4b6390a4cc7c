package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/worktree"
)

// The index of a state verify passed is kept for checkpoint, which then
// tells whether the worktree still holds that state with one git command
// (git add --dry-run on it) instead of writing the state tree again with
// two. It is named by its SHA-256, and the verification records that
// hash: checkpoint uses a file only when its content still has the hash
// the ledger holds, so an index rewritten meanwhile — by anyone — is not
// used, and the state tree is written as before.

func verifiedDir(common string) string { return filepath.Join(common, "agentproto", "verified") }

// saveVerifiedIndex keeps index and returns its hash.
func saveVerifiedIndex(common string, index []byte) (string, error) {
	h := sha256.Sum256(index)
	sum := hex.EncodeToString(h[:])
	return sum, writeByHash(verifiedDir(common), sum+".index", index)
}

// loadVerifiedIndex reads back the index whose hash is sum; false when
// there is none or its content no longer has that hash.
func loadVerifiedIndex(common, sum string) ([]byte, bool) {
	if !isHash(sum) {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(verifiedDir(common), sum+".index"))
	if err != nil {
		return nil, false
	}
	h := sha256.Sum256(b)
	return b, hex.EncodeToString(h[:]) == sum
}

// dropVerifiedIndex removes a kept index once its state is committed.
func dropVerifiedIndex(common, sum string) {
	if isHash(sum) {
		os.Remove(filepath.Join(verifiedDir(common), sum+".index"))
	}
}

func isHash(sum string) bool {
	return len(sum) == 64 && strings.Trim(sum, "0123456789abcdef") == ""
}

// writeByHash writes b as dir/name, name being b's hash (see
// worktree.WriteReplacing).
func writeByHash(dir, name string, b []byte) error {
	return worktree.WriteReplacing(dir, name, b)
}
