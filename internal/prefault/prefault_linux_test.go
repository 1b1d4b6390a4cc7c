package prefault

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The pages init advised are present, though nothing has written most of
// them: a test binary's heap at this point is well under a megabyte, so
// without the advice more than half of them would be absent. A few may
// have been handed back since (the runtime's scavenger), hence the slack.
func TestTheHeapIsMappedInAtStart(t *testing.T) {
	from, to := advised.from, advised.to
	if to == 0 {
		t.Fatal("init found no mapping holding its first allocation")
	}
	if advised.errno != 0 {
		t.Skipf("the kernel refused MADV_POPULATE_WRITE: %v", advised.errno)
	}
	page := uint64(os.Getpagesize())
	vec := make([]byte, (to-from+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(from), uintptr(to-from), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	absent := 0
	for _, v := range vec {
		if v&1 == 0 {
			absent++
		}
	}
	if absent > len(vec)/20 {
		t.Fatalf("%d of the %d pages from %#x to %#x are not present", absent, len(vec), from, to)
	}
}
