package gitstore

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

type benchItem struct {
	Project string `json:"project"`
	WP      string `json:"wp"`
	N       int    `json:"n"`
}

var (
	benchOwner = NewOwner("fold-bench")
	benchKind  = Declare[benchItem](benchOwner, "fold_bench_item")
)

// BenchmarkFold compares the typed fold with the hand-written loop it
// replaced (Each and json.Unmarshal per event), over 20,000 events of one
// kind on a warm index; fold/loop is their ratio.
func BenchmarkFold(b *testing.B) {
	l, _ := newLedger(b)
	drafts := make([]Draft, 20000)
	for i := range drafts {
		d, err := benchOwner.Draft(benchKind.String(), fmt.Sprintf("item/%d", i), benchItem{Project: "p", WP: fmt.Sprintf("WP%d", i%7), N: i})
		if err != nil {
			b.Fatal(err)
		}
		drafts[i] = d
	}
	if _, err := l.Append(drafts); err != nil {
		b.Fatal(err)
	}
	if _, _, err := l.Count(); err != nil { // warm the index
		b.Fatal(err)
	}
	fold := func() {
		sum := 0
		if _, err := Fold(l, &sum, On(benchKind, func(sum *int, _ *Event, d benchItem) { *sum += d.N })); err != nil || sum == 0 {
			b.Fatal(err)
		}
	}
	loop := func() {
		sum := 0
		err := l.Each(Query{Kinds: []string{benchKind.String()}, Reverse: true}, func(e *Event) error {
			var d benchItem
			if json.Unmarshal(e.Data, &d) == nil {
				sum += d.N
			}
			return nil
		})
		if err != nil || sum == 0 {
			b.Fatal(err)
		}
	}
	// Alternate the two, so that a busy machine slows both alike.
	var foldTime, loopTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		fold()
		foldTime += time.Since(start)
		start = time.Now()
		loop()
		loopTime += time.Since(start)
	}
	b.ReportMetric(float64(foldTime.Milliseconds())/float64(b.N), "fold-ms")
	b.ReportMetric(float64(loopTime.Milliseconds())/float64(b.N), "loop-ms")
	b.ReportMetric(foldTime.Seconds()/loopTime.Seconds(), "fold/loop")
}
