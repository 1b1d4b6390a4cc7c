// Package gcfloor lets a short command end without collecting garbage:
// below a floor of heap, the collector stays off. A command is a process
// that lives well under a second and allocates a few megabytes it never
// frees; the Go runtime starts collecting at 4 MB, and on a machine whose
// page faults are slow one dispatch spent 10–20 ms of CPU in three
// collections (GODEBUG=gctrace=1). Past the floor, collection goes back
// to what it was, so a command that grows — a cold index rebuild, a
// large batch — keeps the memory profile it had.
//
// The runtime has no setting for "not before N bytes": GOGC=off with a
// memory limit at the floor gives one collection there, and a cleanup on
// an object nothing holds runs after that collection, which turns GOGC
// back on and lifts the limit. (The libraries that tune the collector
// set a limit from the cgroup's, as automemlimit does: another job.)
package gcfloor

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// DefaultFloor is the heap below which a command does not collect.
const DefaultFloor = 32 << 20

var (
	mu      sync.Mutex
	holding bool // the floor is in force: GOGC off, the limit at the floor
	floor   int64
	paused  int // Pause calls not resumed yet
	percent = 100
)

// Hold turns collection off until the heap reaches bytes. It does
// nothing when GOGC or GOMEMLIMIT is set: the user's settings win.
func Hold(bytes int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if holding {
		return
	}
	holding, floor = true, bytes
	percent = debug.SetGCPercent(-1)
	if paused == 0 {
		debug.SetMemoryLimit(bytes)
	}
	// Reachable from nothing: the first collection finds it dead.
	runtime.AddCleanup(new(sentinel), func(struct{}) { release() }, struct{}{})
}

// sentinel is big enough, and holds a pointer, so that it is an object of
// its own: the tiny allocator would pack a smaller one with others.
type sentinel struct {
	_ *int
	_ [24]byte
}

// release ends the floor after the first collection.
func release() {
	mu.Lock()
	defer mu.Unlock()
	if !holding {
		return
	}
	holding = false
	debug.SetMemoryLimit(math.MaxInt64)
	if paused == 0 {
		debug.SetGCPercent(percent)
	}
}

// Pause turns collection off, floor or not, until resume is called: for a
// burst of allocation whose memory is all in use until it ends. Pauses
// nest.
func Pause() (resume func()) {
	mu.Lock()
	defer mu.Unlock()
	if paused == 0 {
		if prev := debug.SetGCPercent(-1); !holding {
			percent = prev
		}
		if holding {
			debug.SetMemoryLimit(math.MaxInt64)
		}
	}
	paused++
	var once sync.Once
	return func() { once.Do(resume1) }
}

func resume1() {
	mu.Lock()
	defer mu.Unlock()
	if paused--; paused > 0 {
		return
	}
	if holding {
		// Past the floor already, the next allocation collects, and the
		// floor ends with that collection.
		debug.SetMemoryLimit(floor)
		return
	}
	debug.SetGCPercent(percent)
}
