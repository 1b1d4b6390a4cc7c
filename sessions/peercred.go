package sessions

import (
	"errors"
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// PeerCred returns the credentials of the process at the other end of a
// Unix socket, as the kernel recorded them at connect or listen time:
// they cannot be forged by the peer.
func PeerCred(conn net.Conn) (*unix.Ucred, error) {
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

// SamePeerUser checks that the peer runs as our user: the daemon serves
// only its owner, and the client talks only to its own daemon.
func SamePeerUser(conn net.Conn) (*unix.Ucred, bool, error) {
	cred, err := PeerCred(conn)
	if err != nil {
		return nil, false, err
	}
	return cred, int(cred.Uid) == os.Geteuid(), nil
}
