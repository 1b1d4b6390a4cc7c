package prefault

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

var (
	// first is this package's first allocation: where the heap is in use.
	first *[64]byte
	// advised is the range init advised and the kernel's answer; to is 0
	// when it found no mapping.
	advised struct {
		from, to uint64
		errno    syscall.Errno
	}
)

func init() {
	first = new([64]byte)
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	from, to, ok := span(maps, uint64(uintptr(unsafe.Pointer(first))), uint64(os.Getpagesize()))
	if !ok {
		return
	}
	// The advice is a hint: an error (an older kernel, a range the
	// runtime has not mapped) leaves the faults to happen one by one.
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(from), uintptr(to-from), unix.MADV_POPULATE_WRITE)
	advised.from, advised.to, advised.errno = from, to, errno
}
