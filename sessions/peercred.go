package sessions

import (
	"errors"
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// peerCred returns the credentials of the process at the other end of a
// Unix socket, as the kernel recorded them at connect or listen time:
// they cannot be forged by the peer.
func peerCred(conn net.Conn) (*unix.Ucred, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return nil, errors.New("not a Unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	if credErr != nil {
		return nil, fmt.Errorf("reading the peer's credentials: %w", credErr)
	}
	return cred, nil
}

// samePeerUser checks that the peer runs as our user: the daemon serves
// only its owner, and the client talks only to its own daemon.
func samePeerUser(conn net.Conn) (*unix.Ucred, bool, error) {
	cred, err := peerCred(conn)
	if err != nil {
		return nil, false, err
	}
	return cred, int(cred.Uid) == os.Geteuid(), nil
}

// admit lets in connections from our own user only; others are logged and
// closed before a byte of theirs is read.
func (d *Daemon) admit(conn net.Conn) bool {
	cred, ok, err := samePeerUser(conn)
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
	cred, err := peerCred(conn)
	if err != nil {
		return 0
	}
	return cred.Pid
}
