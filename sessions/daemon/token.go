package daemon

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"os"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// The control token (sessions/tokenpath.go): the daemon makes it at start
// and refuses a request that does not carry it.

// writeToken makes a new control token and writes it, private to this
// user, before the daemon listens.
func writeToken(common string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	path := sessions.TokenPath(common)
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

// authorise refuses a request that does not carry the daemon's token.
func (d *Daemon) authorise(req *sessions.Request) error {
	if req.Op == sessions.OpPing || d.token == "" {
		return nil
	}
	if subtle.ConstantTimeCompare([]byte(req.Token), []byte(d.token)) == 1 {
		return nil
	}
	return fault.Refusedf("the sessions daemon refused %q: the request carries no valid control token. Only the user's own commands hold it; a process inside a session's sandbox cannot read it (%s)", req.Op, sessions.TokenPath(d.repo.CommonDir))
}
