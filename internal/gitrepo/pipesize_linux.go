package gitrepo

import (
	"io"
	"syscall"
)

// growPipe asks for a 1 MB pipe from git (64 KB by default): git can run
// that much further ahead while its reader is busy, and the two switch
// places less often.
func growPipe(r io.Reader) {
	sc, ok := r.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	raw.Control(func(fd uintptr) {
		const setPipeSize = 1031 // F_SETPIPE_SZ
		syscall.Syscall(syscall.SYS_FCNTL, fd, setPipeSize, 1<<20)
	})
}
