package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agentproto/agentproto/internal/fault"
)

// RuntimeDir is the private directory holding the daemon sockets of this
// user: under XDG_RUNTIME_DIR when it is set (and short enough for a
// socket path), else under the temp dir, where another local user may have
// created it first. CheckRuntimeDir says whether it can be trusted.
func RuntimeDir() string {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" || len(base) > 60 {
		base = os.TempDir()
	}
	return filepath.Join(base, fmt.Sprintf("agentproto-%d", os.Getuid()))
}

// SocketPath is where the daemon of a repository listens, named by a hash
// of the common dir: a Unix socket path must stay under 108 bytes.
func SocketPath(common string) string {
	return filepath.Join(RuntimeDir(), RepoKey(common)+".sock")
}

// RepoKey names the files of a repository in the runtime directory.
func RepoKey(common string) string {
	sum := sha256.Sum256([]byte(common))
	return hex.EncodeToString(sum[:8])
}

// EnsureRuntimeDir creates the runtime directory (0700) when missing and
// checks it: a real directory, ours, closed to group and others. Anything
// else may belong to someone waiting for our requests, so it is refused,
// not repaired.
func EnsureRuntimeDir() (string, error) {
	dir := RuntimeDir()
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("creating the sessions runtime directory: %w", err)
	}
	return dir, checkPrivateDir(dir)
}

func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("the sessions runtime directory: %w", err)
	}
	uid := os.Geteuid()
	fix := "set XDG_RUNTIME_DIR to a directory only you can use (such as /run/user/" + fmt.Sprint(uid) + ")"
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fault.Refusedf("refusing the sessions runtime directory %s: it is not a directory (%s); remove it or %s", dir, fi.Mode().Type(), fix)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fault.Refusedf("refusing the sessions runtime directory %s: its owner cannot be read", dir)
	}
	if int(st.Uid) != uid {
		return fault.Refusedf("refusing the sessions runtime directory %s: it belongs to uid %d, not to you (uid %d), and its owner could read your sessions' requests; have it removed or %s", dir, st.Uid, uid, fix)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fault.Refusedf("refusing the sessions runtime directory %s: its mode %04o lets other users in; run chmod 700 %s (or remove it) or %s", dir, perm, dir, fix)
	}
	return nil
}
