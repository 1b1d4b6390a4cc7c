package prefault

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The pages after the first allocation are present when the program runs,
// up to Above, though nothing has written most of them: a test binary's
// heap at this point is well under a megabyte.
func TestTheHeapIsMappedInAtStart(t *testing.T) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	from, to, ok := span(maps, uint64(uintptr(unsafe.Pointer(first))))
	if !ok {
		t.Fatal("the first allocation is in no mapping")
	}
	if to-from < Above/2 {
		t.Skipf("the heap's mapping ends %d bytes after the first allocation", to-from)
	}
	vec := make([]byte, (to-from)/pageSize)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(from), uintptr(to-from), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	absent := 0
	for _, v := range vec {
		if v&1 == 0 {
			absent++
		}
	}
	if absent > 0 {
		t.Fatalf("%d of the %d pages from %#x to %#x are not present", absent, len(vec), from, to)
	}
}
