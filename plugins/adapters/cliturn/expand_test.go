package cliturn

import (
	"reflect"
	"testing"
)

// A value that holds another placeholder is not expanded again. Map order
// is random in Go, so a replacement done key by key gives either answer
// from one run to the next; the loop makes that show.
func TestExpandIsOnePassOverTheTemplate(t *testing.T) {
	vars := map[string]string{"model": "{prompt}", "prompt": "/run/p-{model}/prompt.md", "session": "{model}{prompt}"}
	want := []string{"--model", "{prompt}", "--message-file", "/run/p-{model}/prompt.md", "s={model}{prompt}", "{unknown}"}
	for i := 0; i < 50; i++ {
		got := Expand([]string{"--model", "{model}", "--message-file", "{prompt}", "s={session}", "{unknown}"}, vars)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d: %q, want %q", i, got, want)
		}
	}
}
