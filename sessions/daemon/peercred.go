package daemon

import (
	"net"
	"os"

	"github.com/agentproto/agentproto/sessions"
)

// admit lets in connections from our own user only; others are logged and
// closed before a byte of theirs is read.
func (d *Daemon) admit(conn net.Conn) bool {
	cred, ok, err := sessions.SamePeerUser(conn)
	if err != nil {
		d.logf("refused a connection: %v", err)
		return false
	}
	if !ok {
		d.logf("refused a connection from uid %d, process %d: this daemon serves uid %d only", cred.Uid, cred.Pid, os.Geteuid())
	}
	return ok
}

// peerPid is the pid of the process at the other end, 0 if unknown.
func (d *Daemon) peerPid(conn net.Conn) int32 {
	cred, err := sessions.PeerCred(conn)
	if err != nil {
		return 0
	}
	return cred.Pid
}
