package daemon

import "testing"

// The ping's answer is READY on its own line, or the last word right
// after a sentence another message ended; nothing else counts.
func TestAnsweredReady(t *testing.T) {
	cases := map[string]bool{
		"READY\n":         true,
		"  READY  \n":     true,
		"thinking\nREADY": true,
		"Model metadata for `gpt-5.1-codex` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.READY": true,
		"warning: slow start!READY\n": true,
		"NOTREADY":                    false,
		"I am not READY":              false,
		"READY, but first a question": false,
		"READY?":                      false,
		"":                            false,
		"issues.READY\nthen more":     false,
	}
	for out, want := range cases {
		if got := answeredReady(out); got != want {
			t.Errorf("answeredReady(%q) = %v, want %v", out, got, want)
		}
	}
}
