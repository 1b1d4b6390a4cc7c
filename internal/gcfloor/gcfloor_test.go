package gcfloor

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Each case runs in a process of its own: the collector's settings are
// the whole process's.
func TestMain(m *testing.M) {
	if c := os.Getenv("GCFLOOR_CASE"); c != "" {
		if err := cases[c](); err != nil {
			fmt.Println("FAIL:", err)
			os.Exit(1)
		}
		fmt.Println("ok")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var keep [][]byte

// allocate makes n MiB in 64 KiB pieces, kept or not.
func allocate(n int, kept bool) {
	for i := 0; i < n*16; i++ {
		b := make([]byte, 64<<10)
		b[0] = 1
		if kept {
			keep = append(keep, b)
		}
	}
}

func numGC() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}

func gcPercent() int {
	v := debug.SetGCPercent(-1)
	debug.SetGCPercent(v)
	return v
}

// waitReleased waits for the cleanup that ends the floor.
func waitReleased() error {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		mu.Lock()
		h := holding
		mu.Unlock()
		if !h {
			if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
				return fmt.Errorf("after the floor: GOGC %d, limit %d; want 100 and none", p, l)
			}
			return nil
		}
		allocate(1, false)
	}
	return fmt.Errorf("the floor never ended (%d collections)", numGC())
}

var cases = map[string]func() error{
	// Without the floor, 12 MiB kept is collected several times: the
	// control that shows the next case can fail.
	"control": func() error {
		allocate(12, true)
		if n := numGC(); n == 0 {
			return fmt.Errorf("no collection without the floor")
		}
		return nil
	},
	"small": func() error {
		Hold(32 << 20)
		allocate(12, true)
		if n := numGC(); n != 0 {
			return fmt.Errorf("%d collections under the floor", n)
		}
		return nil
	},
	"past": func() error {
		Hold(8 << 20)
		allocate(48, false)
		if numGC() == 0 {
			return fmt.Errorf("no collection past the floor")
		}
		return waitReleased()
	},
	"pause": func() error {
		Hold(8 << 20)
		resume := Pause()
		allocate(48, true)
		if n := numGC(); n != 0 {
			return fmt.Errorf("%d collections during a pause", n)
		}
		resume()
		resume() // once only
		keep = nil
		allocate(16, false)
		return waitReleased()
	},
	"pause without floor": func() error {
		debug.SetGCPercent(70)
		resume := Pause()
		allocate(24, true)
		if n := numGC(); n != 0 {
			return fmt.Errorf("%d collections during a pause", n)
		}
		resume()
		if p := gcPercent(); p != 70 {
			return fmt.Errorf("GOGC after the pause %d, want 70 as it was", p)
		}
		return nil
	},
	"user settings": func() error {
		Hold(32 << 20)
		if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 50 || l != math.MaxInt64 {
			return fmt.Errorf("with GOGC=50 set: GOGC %d, limit %d", p, l)
		}
		allocate(12, true)
		if numGC() == 0 {
			return fmt.Errorf("GOGC=50 set, yet no collection")
		}
		return nil
	},
}

// TestFloor: under the floor nothing is collected (the control is);
// past it the collector runs and the floor ends, GOGC back on and no
// limit left; a pause holds off collection past the floor and the floor
// ends after it; a pause alone puts GOGC back as it found it; GOGC set by
// the user is left alone.
func TestFloor(t *testing.T) {
	for name := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "GCFLOOR_CASE="+name, "GOGC=", "GOMEMLIMIT=")
			if name == "user settings" {
				cmd.Env = append(cmd.Env, "GOGC=50")
			}
			out, err := cmd.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "ok" {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}
