// Package inputfile reads a file named on the command line, refusing
// anything but a regular file under a size limit.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/agentproto/agentproto/internal/fault"
)

// Read reads a file named on the command line into memory, as one
// attachment or the event data. Only a regular file, named directly, is
// read: a device (/dev/zero) would grow without bound, a FIFO would block
// forever, and a symbolic link may point anywhere the caller did not mean.
// The file is opened without blocking and checked again once open, so that
// swapping it between the check and the open changes nothing.
func Read(flag, path string, limit int64) ([]byte, error) {
	fail := func(format string, args ...any) error {
		return fault.Invalidf("%s %s: %s; nothing was written", flag, path, fmt.Sprintf(format, args...))
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fail("%v", unwrapPath(err))
	}
	if err := regularUnder(fi, limit); err != nil {
		return nil, fail("%v", err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fail("is a symbolic link; name the file itself")
		}
		return nil, fail("%v", unwrapPath(err))
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fail("%v", err)
	}
	if err := regularUnder(fi, limit); err != nil {
		return nil, fail("%v", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fail("%v", err)
	}
	if int64(len(b)) > limit {
		return nil, fail("is larger than the limit of %d bytes", limit)
	}
	return b, nil
}

func regularUnder(fi fs.FileInfo, limit int64) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return errors.New("is a symbolic link; name the file itself")
	case !m.IsRegular():
		return fmt.Errorf("is not a regular file (%s)", fileType(m))
	case fi.Size() > limit:
		return fmt.Errorf("is %d bytes; the limit is %d", fi.Size(), limit)
	}
	return nil
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a plain file"
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
