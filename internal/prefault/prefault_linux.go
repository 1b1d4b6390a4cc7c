package prefault

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// first is this package's first allocation: where the heap is in use.
var first *[64]byte

func init() {
	first = new([64]byte)
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	from, to, ok := span(maps, uint64(uintptr(unsafe.Pointer(first))))
	if !ok {
		return
	}
	// The advice is a hint: an error (an older kernel, a range the
	// runtime has not mapped) leaves the faults to happen one by one.
	unix.Syscall(unix.SYS_MADVISE, uintptr(from), uintptr(to-from), unix.MADV_POPULATE_WRITE)
}
