package pipeline

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// togetherAtMost runs every read, never more than its limit at a time,
// and gives the first error in the order the reads were given, not the
// first to come.
func TestTogetherAtMostKeepsItsLimit(t *testing.T) {
	var running, most, ran atomic.Int32
	first, second := errors.New("first"), errors.New("second")
	ninthFailed := make(chan struct{})
	var reads []func() error
	for i := range 12 {
		reads = append(reads, func() error {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			// Each read waits for a fourth to run beside it, which a limit
			// of 3 never lets happen: 200 ms for the others to pile up.
			for deadline := time.Now().Add(200 * time.Millisecond); most.Load() < 4 && time.Now().Before(deadline); {
				time.Sleep(100 * time.Microsecond)
			}
			running.Add(-1)
			ran.Add(1)
			switch i {
			case 9:
				close(ninthFailed)
				return second
			case 4:
				// Fails only once the tenth read has (a bound, should the
				// limit keep it from running).
				select {
				case <-ninthFailed:
				case <-time.After(5 * time.Second):
				}
				return first
			}
			return nil
		})
	}
	if err := togetherAtMost(3, reads...); err != first {
		t.Fatalf("error %v, want the fifth read's", err)
	}
	if ran.Load() != 12 || most.Load() != 3 {
		t.Fatalf("%d reads ran, at most %d at once; want 12, 3 at once", ran.Load(), most.Load())
	}
}
