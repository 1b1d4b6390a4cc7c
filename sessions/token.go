package sessions

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
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
	return filepath.Join(RuntimeDir(), repoKey(common)+".token")
}

// writeToken makes a new control token and writes it, private to this
// user, before the daemon listens.
func writeToken(common string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	path := TokenPath(common)
	tmp := path + ".tmp"
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(tok)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tok, nil
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

// authorise refuses a request that does not carry the daemon's token.
func (d *Daemon) authorise(req *Request) error {
	if req.Op == OpPing || d.token == "" {
		return nil
	}
	if subtle.ConstantTimeCompare([]byte(req.Token), []byte(d.token)) == 1 {
		return nil
	}
	return fault.Refusedf("the sessions daemon refused %q: the request carries no valid control token. Only the user's own commands hold it; a process inside a session's sandbox cannot read it (%s)", req.Op, TokenPath(d.repo.CommonDir))
}
