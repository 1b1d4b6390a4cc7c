package confmerge

import (
	"fmt"
	"strings"
	"testing"
)

// arrays returns a config holding one array of n distinct strings in
// format f, and a snippet that appends n more, half of them already there.
func arrays(f Format, n int) (base []byte, snippet string) {
	var have, add []string
	for i := 0; i < n; i++ {
		have = append(have, fmt.Sprintf("%q", fmt.Sprintf("item-%d", i)))
		add = append(add, fmt.Sprintf("%q", fmt.Sprintf("item-%d", i+n/2)))
	}
	switch strings.ToLower(f.Name()) {
	case "toml":
		return []byte("list = [" + strings.Join(have, ", ") + "]\n"), "list = [" + strings.Join(add, ", ") + "]\n"
	case "yaml":
		return []byte("list: [" + strings.Join(have, ", ") + "]\n"), `{"list": [` + strings.Join(add, ", ") + `]}`
	}
	return []byte(`{"list": [` + strings.Join(have, ", ") + "]}\n"), `{"list": [` + strings.Join(add, ", ") + `]}`
}

// BenchmarkMergeArray: a snippet appending to an array of 1k, 10k and
// 100k elements, in each format. Target: 100k in under a second.
func BenchmarkMergeArray(b *testing.B) {
	for _, file := range []string{"a.json", "a.toml", "a.yaml"} {
		for _, n := range []int{1000, 10000, 100000} {
			f := ForFile(file)
			base, snippet := arrays(f, n)
			b.Run(fmt.Sprintf("%s/%d", f.Name(), n), func(b *testing.B) {
				for b.Loop() {
					d, err := SnippetDelta(f, base, snippet, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := Merge(f, base, d); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// A 100,000-element array merges, each new element once, the ones it
// holds not again.
func TestMergeOfALargeArray(t *testing.T) {
	f := ForFile("a.json")
	base, snippet := arrays(f, 100000)
	d, err := SnippetDelta(f, base, snippet, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Merge(f, base, d)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), `"item-`); n != 150000 {
		t.Fatalf("%d elements after the merge, want 150000", n)
	}
}
