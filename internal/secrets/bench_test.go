package secrets

import (
	"fmt"
	"strings"
	"testing"
)

// A 1 MiB gate log (the most a gate log keeps) of test output, against
// strings.Contains of one value over it: the floor of any search.
func BenchmarkFindGateLog(b *testing.B) {
	var log strings.Builder
	for i := 0; log.Len() < 1<<20; i++ {
		fmt.Fprintf(&log, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n    case_test.go:%d: got 0x%08x, path /tmp/work/%d/out\n", i, i, i, i*7919, i)
	}
	text := log.String()
	s := testSet()
	b.Run("Find", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			if len(s.Find(text)) != 0 {
				b.Fatal("finding in a clean log")
			}
		}
	})
	b.Run("Contains", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			if strings.Contains(text, ghToken) {
				b.Fatal("finding in a clean log")
			}
		}
	})
}

// A log an agent made to be slow: the literal of every shape over and over.
func BenchmarkFindHostileLog(b *testing.B) {
	text := strings.Repeat("sk-eyJ.ghp_AKIAxoxbearer aws ", (1<<20)/30)
	s := testSet()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		s.Find(text)
	}
}
