package sessions

import (
	"os"
	"path/filepath"
	"strings"
)

// The daemon's socket is reachable from inside a session's sandbox:
// Landlock checks connect(2) on a pathname Unix socket only from ABI 9.
// So control is authorised by a token the daemon writes at start into
// the runtime directory, which the sandbox can neither read nor list:
// every operation but ping must carry it. A process inside a session —
// however it rewrites its environment, leaves its process group or
// detaches — cannot start, prompt, kill or wait on sessions, nor attach
// policies.

// TokenPath is where the daemon of a repository keeps its control token.
func TokenPath(common string) string {
	return filepath.Join(RuntimeDir(), RepoKey(common)+".token")
}

// readToken is the control token of the daemon of a repository, "" when
// it cannot be read (from inside a sandbox, or before a daemon ran).
func readToken(common string) string {
	b, err := os.ReadFile(TokenPath(common))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
