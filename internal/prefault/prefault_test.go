package prefault

import (
	"fmt"
	"testing"
)

func TestSpanStaysInTheMappingHoldingTheAddress(t *testing.T) {
	const heapLo, heapHi = 0x29de45800000, 0x29de45c00000 // 4 MB
	maps := fmt.Sprintf("00400000-01c0d000 r-xp 00000000 08:01 123 /usr/bin/git-agentproto\n"+
		"29de44000000-%x ---p 00000000 00:00 0\n"+
		"%x-%x rw-p 00000000 00:00 0\n"+
		"garbage line\n"+
		"%x-29de48000000 ---p 00000000 00:00 0\n", uint64(heapLo), uint64(heapLo), uint64(heapHi), uint64(heapHi))
	cases := []struct {
		name     string
		at       uint64
		from, to uint64
		ok       bool
	}{
		{"in the middle", heapLo + 0x100123, heapLo + 0x100000 - Below, heapLo + 0x100000 + Above, true},
		{"near the start", heapLo + 0x1180, heapLo, heapLo + 0x1000 + Above, true},
		{"near the end", heapHi - 0x10, heapHi - 0x1000 - Below, heapHi, true},
		{"in a reservation", heapHi + 0x10, heapHi, heapHi + Above, true},
		{"in no mapping", 0x7000, 0, 0, false},
	}
	// Pages of 16 KB: the range starts and ends on one.
	if from, to, _ := span([]byte(maps), heapLo+0x105123, 0x4000); from != heapLo+0x104000-Below || to != heapLo+0x104000+Above {
		t.Errorf("16 KB pages: span = %#x-%#x", from, to)
	}
	for _, c := range cases {
		from, to, ok := span([]byte(maps), c.at, 4096)
		if ok != c.ok || from != c.from || to != c.to {
			t.Errorf("%s: span(%#x) = %#x-%#x %v, want %#x-%#x %v", c.name, c.at, from, to, ok, c.from, c.to, c.ok)
		}
	}
}
